#!/usr/bin/env python3
"""End-to-end medium benchmark: lag percentiles and mediumd's CPU share under load.

Headline: one saturated TCP flow over one hop at 802.11g 54 Mbit/s, through real Linux and
mediumd. Prints goodput (and the analytic value), mediumd's lag percentiles (wall-clock
delivery minus the frame's logical end: how late the daemon was), mediumd's CPU share
(utime+stime of its process over the flow, as a fraction of one CPU) and the whole guest's
CPU busy fraction. ``--sweep`` adds chains of 1/3/6 hops at 2, 11 and 54 Mbit/s (UDP,
saturated) to find the largest topology and rate whose p99 lag stays under 1 ms.

Runs natively (root and mac80211_hwsim) or inside a guest. On other hosts it handed itself to
the QEMU guest (``harness.vm.dispatch.run_script_in_vm``), which was removed with that engine
after revision d281ef7: there it now stops with an ImportError.

Usage: python3 bench/medium_e2e.py [--seconds S] [--sweep] [--spin-us N] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
# the checkout and this folder (cpu_meter, medium_fidelity): a guest's Python adds neither
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from cpu_meter import CpuMeter  # noqa: E402


def measure(net, src: str, dst: str, protocol: str, seconds: float,
            bitrate: Optional[str] = None) -> Dict[str, Any]:
    """One flow; mediumd CPU, guest CPU and the medium's counters over exactly that flow."""
    from harness.medium.counters import stats_delta
    from harness.medium.daemon import handle_for
    from harness.traffic.flows import Flow, ping, run_flow
    handle = handle_for(net)
    ping(net, src, dst, count=2)
    before, meter = handle.stats(), CpuMeter(handle.proc.pid)
    extra = ["-l", "1472"] if protocol == "udp" else []
    result = run_flow(net, Flow(src, dst, seconds, protocol, bitrate=bitrate, extra=extra)).result
    cpu = meter.result()
    delta = stats_delta(before, handle.stats())
    return {"goodput_mbps": round(result.throughput_mbps, 3),
            "retransmits": result.retransmits,
            "mediumd_cpu_share": cpu["mediumd_cpu_share"],
            # the machine's busy fraction (named so in the bench's output, in the guest or not)
            "guest_cpu_busy": cpu.get("guest_cpu_busy", cpu.get("cpu_busy")),
            "ncpu": cpu["ncpu"],
            "frames_per_s": round(delta["frames"].get("in", 0) / max(delta["interval_s"], 1e-9), 1),
            "lag_us": delta["lag_us"], "status_lag_us": delta["status_lag_us"],
            "busy_fraction": {r["node"]: round(r["busy_fraction"], 3) for r in delta["radios"]}}


def headline(seconds: float, spin_us: int = 0) -> Dict[str, Any]:
    from medium_fidelity import medium_spec, pair_topology, tcp_check

    from harness.net.network import Network
    check = tcp_check("g", 54, duration=seconds)
    with Network(pair_topology(check), medium=medium_spec(check, spin_us=spin_us or None)) as net:
        out = measure(net, "sta1", "sta2", "tcp", seconds)
    out.update(name="tcp_1hop_g_54", analytic_mbps=round(check.expected, 3))
    return out


#: (phy, rate, offered UDP load): more than each chain carries, so every hop stays busy.
SWEEP_RATES = (("b", 2, "2M"), ("b", 11, "8M"), ("g", 54, "35M"))


def sweep(seconds: float, spin_us: int = 0) -> List[Dict[str, Any]]:
    from harness.medium.spec import MediumSpec
    from harness.net.network import Network
    from topologies.chain import build
    rows = []
    for phy, rate, offered in SWEEP_RATES:
        for hops in (1, 3, 6):
            topo = build(hops=hops, spacing=200.0, rate=rate, phy=phy)
            spec = MediumSpec(tx_range=250, cs_range=550, spin_us=spin_us or None)
            with Network(topo, medium=spec) as net:
                out = measure(net, "sta1", f"sta{hops + 1}", "udp", seconds, bitrate=offered)
            out.update(name=f"chain_{hops}hop_{phy}_{rate}", hops=hops, rate=rate,
                       spin_us=spin_us)
            rows.append(out)
            print(_line(out), file=sys.stderr, flush=True)
    return rows


def _line(r: Dict[str, Any]) -> str:
    lag = r["lag_us"] or {}
    return (f"{r['name']:<22} goodput {r['goodput_mbps']:>7} Mbit/s  lag us p50 {lag.get('p50')} "
            f"p90 {lag.get('p90')} p99 {lag.get('p99')} max {lag.get('max')}  "
            f"mediumd cpu {r['mediumd_cpu_share']:.0%}  guest cpu {r['guest_cpu_busy']:.0%} "
            f"of {r['ncpu']}  frames/s {r['frames_per_s']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--sweep", action="store_true", help="also chains of 1/3/6 hops at 2/11/54")
    ap.add_argument("--spin-us", type=int, default=0,
                    help="run mediumd with --spin-us N (busy-wait before events: less lag, more CPU)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from harness.kernel.host import in_vm, native_capable
    if not (in_vm() or native_capable()):
        from harness.vm.dispatch import run_script_in_vm
        argv = ["python3", "bench/medium_e2e.py", "--seconds", f"{args.seconds:g}",
                "--spin-us", str(args.spin_us)]
        argv += ["--sweep"] * args.sweep + ["--json"] * args.json
        import shlex
        return run_script_in_vm("cd /mnt/code && exec " + " ".join(map(shlex.quote, argv)))
    report: Dict[str, Any] = {"spin_us": args.spin_us,
                              "headline": headline(args.seconds, args.spin_us)}
    if not args.json:
        print(_line(report["headline"]) + f"  (analytic {report['headline']['analytic_mbps']})",
              flush=True)
    if args.sweep:
        report["sweep"] = sweep(args.seconds, args.spin_us)
        ok = [r for r in report["sweep"] if (r["lag_us"] or {}).get("p99", 1e9) < 1000]
        best = max(ok, key=lambda r: (r["hops"], r["rate"]), default=None)
        report["largest_under_1ms_p99"] = best["name"] if best else None
        if not args.json:
            print(f"largest topology/rate with p99 lag < 1 ms: {report['largest_under_1ms_p99']}")
    if args.json:
        print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
