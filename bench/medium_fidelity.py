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
goodput in ``harness.traffic.iperf``) and the CPU measured by ``harness.kernel.cpu_meter``;
this module holds the checks, their expected values and how a result is judged.

Frame sizes on air are the ones Linux sends through an IBSS: QoS data frames (mac80211
negotiates WMM in IBSS: 26-byte header), LLC/SNAP 8, FCS 4; IPv4 20; UDP 8; TCP 32
(timestamps on: MSS 1448). TCP: one ACK frame per two data segments (delayed ACK), each
its own DCF exchange (docs/medium.md, 'Analytic goodput of one sender').
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Optional, Tuple

from harness.errors import HarnessError
from harness.kernel.cpu_meter import CpuMeter
from harness.medium import analytic
from harness.medium.counters import stats_delta
from harness.medium.daemon import handle_for
from harness.medium.spec import MediumSpec

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
#: CPU busy fraction (all CPUs, ``harness.kernel.cpu_meter``) above which a run is called
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
