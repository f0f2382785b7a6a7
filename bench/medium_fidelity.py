"""End-to-end fidelity checks of the medium: one hop through real Linux, against analytic DCF.

Why a module: ``harness bench medium`` (the fidelity report other tools read), the bench
scripts beside it (``medium_e2e.py``) and the emulation tests
(``tests/emulation/test_medium_e2e.py``) must measure the same thing the same way. Why here and
not in ``harness.medium``: a check builds a network and runs flows, so it sits above the
network and traffic layers; it is a bench of the model, not part of it. Loaded by its path
(``harness.cli.bench.load_bench``) or, from the scripts of this directory, as
``medium_fidelity``. A check = one saturated flow over one hop at a fixed legacy rate, its goodput
(iperf3 receiver side) against ``harness.medium.analytic`` for the same frame sizes and settings.

The flows themselves are run by ``harness.traffic`` (``run_together``, the receiver's
goodput in ``harness.traffic.iperf``) and the CPU measured by ``cpu_meter`` (this folder);
this module holds the checks, their expected values and how a result is judged.

Frame sizes on air are the ones Linux sends through an IBSS: QoS data frames (mac80211
negotiates WMM in IBSS: 26-byte header), LLC/SNAP 8, FCS 4; IPv4 20; UDP 8; TCP 32
(timestamps on: MSS 1448). TCP: one ACK frame per two data segments (delayed ACK), each
its own DCF exchange (docs/medium.md, 'Analytic goodput of one sender').
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

# this folder (cpu_meter) and the checkout (harness), also when run as a script
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from cpu_meter import CpuMeter  # noqa: E402

from harness.errors import HarnessError  # noqa: E402
from harness.medium import analytic  # noqa: E402
from harness.medium.counters import stats_delta  # noqa: E402
from harness.medium.daemon import handle_for  # noqa: E402
from harness.medium.spec import MediumSpec  # noqa: E402

MAC_HEADER = 26          # QoS data (IBSS with WMM); 24 without QoS
LLC_FCS = 8 + 4
IP_UDP = 20 + 8
IP_TCP = 20 + 32
UDP_PAYLOAD = 1472       # the fidelity report's payload (iperf3 -l)
TCP_MSS = 1448
#: Basic (control-response) rate sets of the report (issue 3): 802.11b {1, 2};
#: 802.11g ERP-OFDM {6, 12, 24}.
BASIC = {"b": (1.0, 2.0), "g": (6.0, 12.0, 24.0)}


@dataclass
class Check:
    """One fidelity check: settings, expectation, and (after ``run``) the measurement."""

    name: str
    phy: str
    rate: float
    protocol: str = "udp"
    rts: bool = False
    short_preamble: bool = False
    payload: int = UDP_PAYLOAD
    duration: float = 10.0
    tolerance_pct: float = 5.0
    basic_rates: Tuple[float, ...] = ()
    short_slot: bool = True
    mac_header: int = MAC_HEADER
    expected: float = 0.0
    measured: Optional[float] = None
    ok: Optional[bool] = None
    medium: Dict[str, Any] = field(default_factory=dict)
    note: str = ""

    def settings(self) -> Dict[str, Any]:
        out = asdict(self)
        for key in ("name", "expected", "measured", "ok", "tolerance_pct", "medium", "note"):
            out.pop(key)
        out["basic_rates"] = list(self.basic_rates)
        return out

    def to_dict(self) -> Dict[str, Any]:
        err = self.error_pct
        d = {"name": self.name, "measured": self.measured, "expected": round(self.expected, 4),
             "error_pct": None if err is None else round(err, 3),
             "tolerance_pct": self.tolerance_pct, "ok": self.ok, **self.settings(),
             "medium": self.medium}
        if self.note:
            d["note"] = self.note
        return d

    @property
    def error_pct(self) -> Optional[float]:
        if self.measured is None or not self.expected:
            return None
        return 100.0 * (self.measured - self.expected) / self.expected


def udp_check(phy: str, rate: float, *, rts: bool = False, short_preamble: bool = False,
              duration: float = 10.0, tolerance_pct: float = 5.0) -> Check:
    """``udp_1hop_<phy>_<rate>`` (+ ``_rts`` / ``_sp``): one saturated UDP sender."""
    name = f"udp_1hop_{phy}_{rate:g}" + ("_rts" if rts else "") + ("_sp" if short_preamble else "")
    check = Check(name, phy, float(rate), "udp", rts, short_preamble, UDP_PAYLOAD, duration,
                  tolerance_pct, BASIC[phy])
    check.expected = expected_udp(check)
    return check


def tcp_check(phy: str, rate: float, *, duration: float = 10.0,
              tolerance_pct: float = 5.0) -> Check:
    check = Check(f"tcp_1hop_{phy}_{rate:g}", phy, float(rate), "tcp", payload=TCP_MSS,
                  duration=duration, tolerance_pct=tolerance_pct, basic_rates=BASIC[phy])
    check.expected = expected_tcp(check)
    return check


def _exchange(check: Check, payload: int, overhead: int, rts: bool):
    return analytic.exchange(check.phy, check.rate, payload, overhead=overhead,
                             short_preamble=check.short_preamble, rts=rts,
                             short_slot=check.short_slot, basic=list(check.basic_rates))


def expected_udp(check: Check) -> float:
    """Analytic goodput (Mbit/s) of one saturated UDP sender (docs/medium.md)."""
    return analytic.single_sender_goodput_mbps(
        check.phy, check.rate, check.payload, overhead=check.mac_header + LLC_FCS + IP_UDP,
        short_preamble=check.short_preamble, rts=check.rts, short_slot=check.short_slot,
        basic=list(check.basic_rates))


def expected_tcp(check: Check, segments_per_ack: float = 2.0) -> float:
    """Analytic TCP goodput: per ``segments_per_ack`` data exchanges one TCP-ACK exchange,
    each with its own DIFS + mean backoff."""
    overhead = check.mac_header + LLC_FCS + IP_TCP
    data = _exchange(check, check.payload, overhead, check.rts)
    ack = _exchange(check, 0, overhead, check.rts)
    tm = data.tm
    access = tm.difs + tm.cw_min / 2 * tm.slot
    t = segments_per_ack * (access + data.success) + access + ack.success
    return segments_per_ack * check.payload * 8 / t


# -- was it the medium's air or the machine's CPU? ----------------------------------------
#: CPU busy fraction (all CPUs, ``cpu_meter``) above which a run is called
#: CPU-bound: the frames the medium would carry are not produced and consumed fast enough
#: (TCG is ~10x slower).
CPU_BOUND = 0.85
#: Median delivery lag (us) above which the machine, not the medium, set the pace: the
#: daemon ran late by more than a few frame times (seen when other VMs share the host's CPUs,
#: which the guest's own /proc/stat does not show).
LAG_BOUND_US = 2000.0


def cpu_bound(check: Check) -> bool:
    """The regime this check ran in: the CPU (the guest's, or the host's under the guest),
    not the air, was saturated."""
    return starved_reason(check) is not None


def starved_reason(check: Check) -> Optional[str]:
    busy = check.medium.get("guest_cpu_busy", check.medium.get("cpu_busy", 0.0))
    lag50 = (check.medium.get("lag_us") or {}).get("p50") or 0.0
    air = check.medium.get("busy_fraction", {}).get("sta1", 0.0)
    share = check.medium.get("mediumd_cpu_share", 0.0)
    if busy >= CPU_BOUND:
        return (f"CPU-bound: the machine was {100 * busy:.0f}% busy (mediumd {100 * share:.0f}% "
                f"of one CPU) while the air was busy {100 * air:.0f}%")
    if lag50 > LAG_BOUND_US:
        return (f"host-starved: median delivery lag {lag50 / 1000:.1f} ms (the daemon ran late; "
                f"machine {100 * busy:.0f}% busy as it saw it), air busy {100 * air:.0f}%")
    return None


# -- measuring --------------------------------------------------------------------------
def pair_topology(check: Check, distance: float = 20.0):
    from harness.net.topo import Topology
    topo = Topology(f"fid{check.phy}{check.rate:g}")
    for i, name in enumerate(("sta1", "sta2")):
        topo.add_station(name, (i * distance, 0.0), phy=check.phy, rate=check.rate,
                         rts=True if check.rts else None)
    return topo


def medium_spec(check: Check, **extra: Any) -> MediumSpec:
    return MediumSpec(basic_rates={check.phy: tuple(check.basic_rates)},
                      short_slot=check.short_slot, **extra)


def run_check(check: Check, *, warmup: float = 1.0) -> Check:
    """Start a pair, run the saturated flow, fill ``measured``/``ok`` and medium counters."""
    from harness.net.network import Network
    from harness.traffic.flows import Flow, retry_setup, run_together
    from harness.traffic.iperf import receiver_mbps
    with Network(pair_topology(check), medium=medium_spec(check)) as net:
        handle = handle_for(net)
        if handle is None:
            raise HarnessError(f"fidelity check {check.name}: the network started no medium")
        _prime(net)
        before = handle.stats()
        extra = ["--omit", f"{warmup:g}", "--get-server-output"]
        if check.protocol == "udp":
            flow = Flow("sta1", "sta2", check.duration + warmup, "udp",
                        bitrate=f"{max(2 * check.expected, 1):.0f}M",
                        extra=["-l", str(check.payload)] + extra)
        else:
            flow = Flow("sta1", "sta2", check.duration + warmup, "tcp", extra=extra)
        meter = CpuMeter(handle.proc.pid)
        result = retry_setup(lambda: run_together(net, [flow])[0])
        cpu = meter.result()
        delta = stats_delta(before, handle.stats())
    # receiver side: what arrived (a UDP client's own report counts what it sent)
    check.measured = round(receiver_mbps(result, skip=0), 4)
    check.ok = abs(check.error_pct or 100.0) <= check.tolerance_pct
    check.medium = medium_evidence(delta, check)
    check.medium.update(cpu)
    if not check.ok:
        check.note = starved_reason(check) or ""
    return check


def _prime(net) -> None:
    """ARP and the IBSS peer entries exist before the measured flow starts."""
    from harness.traffic.flows import ping
    ping(net, "sta1", "sta2", count=2, interval=0.2)


def medium_evidence(delta: Dict[str, Any], check: Optional[Check] = None) -> Dict[str, Any]:
    """What the medium saw during the flow: lag, busy fractions, per-link counters."""
    links = {f"{l.get('tx_node')}>{l.get('rx_node')}": {k: l.get(k) for k in
             ("attempts", "successes", "collisions", "retry_drops", "airtime_us", "delivered")}
             for l in delta["links"] if l.get("attempts")}
    out = {"interval_s": round(delta["interval_s"], 3),
           "lag_us": delta.get("lag_us"),
           "status_lag_us": delta.get("status_lag_us"),
           "handover_lag_us": delta.get("handover_lag_us"),
           "flush_us": delta.get("flush_us"),
           "busy_fraction": {r.get("node"): round(r["busy_fraction"], 4)
                             for r in delta["radios"]},
           "queue_drops": {r.get("node"): r["queue_drops"] for r in delta["radios"]},
           "links": links}
    # Air used by frames not addressed to one station (IBSS beacons, ARP): real frames of the
    # real stack that the one-flow analytic model does not count.
    radio_air = sum(r.get("tx_airtime_us", 0) for r in delta["radios"])
    link_air = sum(l.get("airtime_us", 0) for l in delta["links"])
    if delta["interval_s"] > 0:
        out["group_airtime_share"] = round(max(0, radio_air - link_air) / 1e6 / delta["interval_s"], 4)
    fwd, rev = links.get("sta1>sta2"), links.get("sta2>sta1")
    if check is not None and check.protocol == "tcp" and fwd and rev and rev["successes"]:
        out["data_frames_per_ack_frame"] = round(fwd["successes"] / rev["successes"], 3)
    return out


# -- the report (``harness bench medium``) ----------------------------------------
#: The report's default checks: every 802.11b rate (long preamble, basic {1, 2}), the
#: mandatory and top 802.11g ERP-OFDM rates (short slot, basic {6, 12, 24}), and variants.
DEFAULT_CHECKS = ("b:1", "b:2", "b:5.5", "b:11", "b:11:rts",
                  "g:6", "g:12", "g:24", "g:54", "g:54:rts", "b:11:tcp", "g:54:tcp")
#: Percent by which a check's quiet and loaded goodputs may differ.
LOAD_AGREEMENT_PCT = 1.0
LOADS = ("both", "quiet", "loaded")


def parse_check(text: str, duration: float, tolerance: float) -> Check:
    """``g:54:rts`` -> a fidelity Check; errors name the allowed values."""
    from harness.kernel import wireless
    parts = text.strip().split(":")
    if len(parts) not in (2, 3) or parts[0] not in wireless.PHY_MODES:
        raise HarnessError(f"--checks item {text!r} is invalid: allowed PHY:RATE[:rts|:sp|:tcp] "
                           f"with PHY one of {', '.join(wireless.PHY_MODES)}, e.g. g:54:rts")
    phy = parts[0]
    try:
        rate = float(parts[1])
    except ValueError:
        raise HarnessError(f"--checks item {text!r}: rate {parts[1]!r} is not a number: allowed "
                           + ", ".join(f"{r:g}" for r in wireless.RATES[phy]) + " Mbit/s") from None
    if wireless.check_rate(rate, phy) is None:
        raise HarnessError(f"--checks item {text!r}: a fixed rate is needed (not automatic)")
    variant = parts[2] if len(parts) == 3 else ""
    if variant not in ("", "rts", "sp", "tcp"):
        raise HarnessError(f"--checks variant {variant!r} in {text!r} is invalid: allowed "
                           "rts, sp, tcp")
    if variant == "tcp":
        return tcp_check(phy, rate, duration=duration, tolerance_pct=tolerance)
    if variant == "sp" and (phy != "b" or rate == 1.0):
        raise HarnessError(f"--checks {text!r}: short preamble exists only for 802.11b 2..11 Mbit/s")
    if variant == "sp":
        # Measured: mac80211 in an IBSS flags every 802.11b frame long-preamble (radiotap
        # flags in mediumd's pcap never carry 0x02); the medium times what the kernel flags,
        # so a short-preamble check would compare long-preamble frames with the short formula.
        raise HarnessError(f"--checks {text!r}: the kernel sends 802.11b with the long preamble "
                           "in an IBSS (no per-frame short-preamble flag reaches the medium); "
                           "allowed variants here: rts")
    return udp_check(phy, rate, rts=variant == "rts", short_preamble=variant == "sp",
                              duration=duration, tolerance_pct=tolerance)


def _argv(args: argparse.Namespace) -> List[str]:
    """The guest's command: one pass (the host starts the load), JSON on standard output."""
    return ["bench", "medium", "--", "--checks", args.checks, "--duration", f"{args.duration:g}",
            "--tolerance", f"{args.tolerance:g}", "--load", "quiet", "--json"]


def cmd_medium(args: argparse.Namespace) -> int:
    checks = [parse_check(c, args.duration, args.tolerance) for c in args.checks.split(",") if c]
    from harness.vm.dispatch import needs_vm  # (checks parsed first: bad input fails at once)
    if not needs_vm() and args.load == "quiet":  # here (natively or in the guest), one pass
        report = measure_pass(checks, show=not args.json)
        if args.json:
            print(json.dumps(report, indent=1))
        return 0 if report["ok"] else 1
    passes = {}
    for load in (("quiet", "loaded") if args.load == "both" else (args.load,)):
        with cpu_load(os.cpu_count() or 1 if load == "loaded" else 0):
            print(f"== pass: {load} host" + (f" ({os.cpu_count()} CPU burners)"
                                              if load == "loaded" else ""),
                  file=sys.stderr, flush=True)
            passes[load] = one_pass(args)
    report = compare_passes(passes, args.tolerance)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for line in comparison_table(report):
            print(line)
    return 0 if report["ok"] else 1


def one_pass(args: argparse.Namespace) -> Dict[str, Any]:
    """One pass of every check, in a guest (its JSON report) or here."""
    from harness.vm.dispatch import harness_script, needs_vm, run_script
    if not needs_vm():
        return measure_pass([parse_check(c, args.duration, args.tolerance)
                             for c in args.checks.split(",") if c], show=False)
    out: List[str] = []
    rc = run_script(harness_script(_argv(args)), on_out=out.append)
    text = "".join(out)
    try:
        report: Dict[str, Any] = json.loads(text[text.index("{"):])
    except ValueError:
        raise HarnessError(f"bench medium in the guest gave no report (exit {rc}): "
                           f"{text.strip()[-500:]}") from None
    return report


def measure_pass(checks: List[Check], show: bool) -> Dict[str, Any]:
    from harness.kernel.host import in_vm
    for check in checks:
        try:
            run_check(check)
        except HarnessError as err:
            check.ok = False
            check.note = f"error: {err}"
        if show:
            print(row(check), flush=True)
    report = {"report": "medium fidelity, one hop, one saturated sender",
              "where": "vm" if in_vm() else "native",
              "clock": os.environ.get("HARNESS_VM_CLOCK", "realtime") if in_vm() else "realtime",
              "checks": [c.to_dict() for c in checks],
              "ok": all(c.ok for c in checks)}
    if show:
        print(f"\n{sum(1 for c in checks if c.ok)}/{len(checks)} within tolerance")
    return report


@contextlib.contextmanager
def cpu_load(processes: int) -> Iterator[None]:
    """``processes`` busy loops at normal priority for the duration (0: none), killed after."""
    from harness.kernel.cleanup import die_with_parent
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                preexec_fn=die_with_parent) for _ in range(processes)]
    try:
        yield
    finally:
        for proc in burners:
            proc.kill()
            proc.wait()


def compare_passes(passes: Dict[str, Dict[str, Any]], tolerance: float) -> Dict[str, Any]:
    """Per check: each pass's goodput and error, and how far the loaded pass is from the
    quiet one; ``ok`` when every check is within tolerance in every pass and the passes agree
    within ``LOAD_AGREEMENT_PCT``."""
    names = [c["name"] for c in next(iter(passes.values()))["checks"]]
    rows = []
    for name in names:
        by_load = {load: next(c for c in rep["checks"] if c["name"] == name)
                   for load, rep in passes.items()}
        entry: Dict[str, Any] = {"name": name,
                                 "expected": next(iter(by_load.values()))["expected"],
                                 "passes": by_load}
        quiet, loaded = by_load.get("quiet"), by_load.get("loaded")
        ok = all(c["ok"] for c in by_load.values())
        if quiet and loaded and quiet["measured"] and loaded["measured"] is not None:
            diff = 100.0 * (loaded["measured"] - quiet["measured"]) / quiet["measured"]
            entry["loaded_vs_quiet_pct"] = round(diff, 2)
            ok = ok and abs(diff) <= LOAD_AGREEMENT_PCT
        entry["ok"] = ok
        rows.append(entry)
    clocks = sorted({rep.get("clock", "?") for rep in passes.values()})
    return {"report": "medium fidelity, quiet and loaded host", "clock": ",".join(clocks),
            "tolerance_pct": tolerance, "agreement_pct": LOAD_AGREEMENT_PCT,
            "checks": rows, "ok": all(r["ok"] for r in rows)}


def comparison_table(report: Dict[str, Any]) -> List[str]:
    lines = [f"clock: {report['clock']}; tolerance {report['tolerance_pct']:g} % of the analytic "
             f"value, quiet and loaded within {report['agreement_pct']:g} % of each other",
             f"{'check':<22} {'analytic':>8}  {'quiet':>8} {'err%':>6} {'lag p99':>8}  "
             f"{'loaded':>8} {'err%':>6} {'lag p99':>8}  {'diff%':>6} ok"]
    for r in report["checks"]:
        cells = []
        for load in ("quiet", "loaded"):
            c = r["passes"].get(load)
            if c is None:
                cells.append(f"{'-':>8} {'-':>6} {'-':>8}")
                continue
            err = c.get("error_pct")
            p99 = ((c.get("medium") or {}).get("lag_us") or {}).get("p99")
            cells.append(f"{c['measured'] if c['measured'] is not None else '-':>8} "
                         f"{'-' if err is None else f'{err:+.2f}':>6} "
                         f"{'-' if p99 is None else f'{p99:.0f}us':>8}")
        diff = r.get("loaded_vs_quiet_pct")
        lines.append(f"{r['name']:<22} {r['expected']:>8.3f}  {cells[0]}  {cells[1]}  "
                     f"{'-' if diff is None else f'{diff:+.2f}':>6} {'yes' if r['ok'] else 'NO'}")
    good = sum(1 for r in report["checks"] if r["ok"])
    lines.append(f"\n{good}/{len(report['checks'])} checks within tolerance in every pass"
                 + (" and agreeing across passes" if "loaded" in report["checks"][0]["passes"]
                    and "quiet" in report["checks"][0]["passes"] else ""))
    return lines


def header() -> str:
    return (f"{'check':<22} {'measured':>9} {'expected':>9} {'err%':>7} {'tol%':>5} ok  "
            f"{'lag p50/p99 us':>16}  busy")


_HEADER_PRINTED: List[bool] = []


def row(check: Check) -> str:
    lines = []
    if not _HEADER_PRINTED:
        lines.append(header())
        _HEADER_PRINTED.append(True)
    lag = check.medium.get("lag_us") or {}
    busy = check.medium.get("busy_fraction", {}).get("sta1")
    err = check.error_pct
    lines.append(f"{check.name:<22} {check.measured if check.measured is not None else '-':>9} "
                 f"{check.expected:>9.3f} {err if err is None else f'{err:+.1f}':>7} "
                 f"{check.tolerance_pct:>5g} {'yes' if check.ok else 'NO ':<3} "
                 f"{lag.get('p50', '-'):>7}/{lag.get('p99', '-'):<8} "
                 f"{busy if busy is not None else '-'}"
                 + (f"\n    {check.note}" if check.note else ""))
    return "\n".join(lines)

def main(argv: List[str]) -> int:
    """``harness bench medium``: the fidelity report."""
    from harness.errors import HarnessError
    from harness.vm.engine import ENGINES, choose
    p = argparse.ArgumentParser(prog="harness bench medium",
                                description="fidelity report: one-hop goodput vs analytic DCF")
    p.add_argument("--json", action="store_true", help="one JSON object with a 'checks' list")
    p.add_argument("--checks", default=",".join(DEFAULT_CHECKS),
                   help="comma list of PHY:RATE[:rts|:sp|:tcp] (default: %(default)s)")
    p.add_argument("--duration", type=float, default=10.0, help="seconds per flow (default 10)")
    p.add_argument("--tolerance", type=float, default=3.0, help="percent (default 3)")
    p.add_argument("--load", choices=LOADS, default="both",
                   help="run the checks on a quiet host, with every host core saturated by a "
                        "CPU load the bench starts, or both and compare (default both)")
    p.add_argument("--engine", choices=ENGINES, help="where the checks run (default uml)")
    args = p.parse_args(argv)
    try:
        if args.engine:
            choose(args.engine)
        return cmd_medium(args)
    except HarnessError as err:
        print(f"harness bench medium: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
