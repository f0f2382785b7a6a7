#!/usr/bin/env python3
"""The guest's clock: how fast emulation runs, and what virtual time changes.

For each case (one saturated flow over one hop at 2, 11 and 54 Mbit/s; TCP end to end over
6-, 7- and 15-hop 802.11b 2 Mbit/s chains) and each guest clock (``virtual``: QEMU's
instruction counter; ``realtime``: the host's wall clock), it prints goodput, the medium's
delivery lag, the guest's busy fraction, and what an emulated second cost the host: wall
seconds, and QEMU's own CPU seconds (a figure other loads on the host do not change).

The host times each flow from marks the guest prints as the flow starts and ends (they
arrive over the agent's stream within milliseconds). Without a VM (natively) there is one
clock, the wall clock, and the QEMU columns are empty.

Usage: python3 bench/clock.py [--clocks virtual,realtime] [--cases NAME,...] [--seconds S] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

MARK = "BENCH-CLOCK "
#: name -> (kind, phy, rate, hops, protocol, offered load for UDP)
CASES: Dict[str, tuple] = {
    "1hop_b2_udp": ("pair", "b", 2.0, 1, "udp", "3M"),
    "1hop_b11_udp": ("pair", "b", 11.0, 1, "udp", "12M"),
    "1hop_g54_udp": ("pair", "g", 54.0, 1, "udp", "60M"),
    "6hop_b2_tcp": ("chain", "b", 2.0, 6, "tcp", None),
    "7hop_b2_tcp": ("chain", "b", 2.0, 7, "tcp", None),
    "15hop_b2_tcp": ("chain", "b", 2.0, 15, "tcp", None),
}


# -- in the guest (or natively) -----------------------------------------------------------
def emit(**fields: Any) -> None:
    print(MARK + json.dumps(fields), flush=True)


def run_case(name: str, seconds: float) -> None:
    from medium_e2e import measure
    from medium_fidelity import medium_spec, pair_topology, udp_check

    from harness.medium.spec import MediumSpec
    from harness.net.network import Network
    from topologies.chain import build
    kind, phy, rate, hops, protocol, offered = CASES[name]
    if kind == "pair":
        check = udp_check(phy, rate, duration=seconds)
        topo, spec = pair_topology(check), medium_spec(check)
        src, dst = "sta1", "sta2"
    else:
        topo = build(hops=hops, spacing=200.0, rate=rate, phy=phy)
        spec = MediumSpec(tx_range=250, cs_range=550)
        src, dst = "sta1", f"sta{hops + 1}"
    with Network(topo, medium=spec) as net:
        emit(event="start", case=name, t=time.monotonic())
        out = measure(net, src, dst, protocol, seconds, bitrate=offered)
        emit(event="end", case=name, t=time.monotonic(), result=out)


def guest_main(cases: List[str], seconds: float) -> int:
    for name in cases:
        run_case(name, seconds)
    return 0


# -- on the host ----------------------------------------------------------------------------
def host_run(clock: str, cases: List[str], seconds: float) -> List[Dict[str, Any]]:
    """Boot a guest on ``clock``, run the cases, time each flow from the guest's marks."""
    from harness.parallel.jobs import process_cpu_seconds
    from harness.paths import code_root
    from harness.vm import dispatch
    from harness.vm.image import ensure_image
    from harness.vm.machine import VM, VMConfig, choose_accel
    image = ensure_image(out=sys.stderr)
    shares, _ = dispatch.shares_for(code_root())
    config = VMConfig(accel=choose_accel(image), shares=shares)
    config.clock = clock
    rows: List[Dict[str, Any]] = []
    open_marks: Dict[str, Dict[str, Any]] = {}
    buffer = [""]

    with VM(image, config) as vm:
        pid = vm.proc.pid if vm.proc is not None else 0
        print(f"[{clock}] VM ready in {vm.boot_seconds:.1f} s ({dispatch.clock_label(vm)})",
              file=sys.stderr, flush=True)

        def on_out(chunk: str) -> None:
            buffer[0] += chunk
            while "\n" in buffer[0]:
                line, buffer[0] = buffer[0].split("\n", 1)
                if not line.startswith(MARK):
                    continue
                mark = json.loads(line[len(MARK):])
                now, cpu = time.monotonic(), process_cpu_seconds(pid)
                if mark["event"] == "start":
                    open_marks[mark["case"]] = {"t": mark["t"], "wall": now, "cpu": cpu}
                    continue
                began = open_marks.pop(mark["case"])
                emulated = mark["t"] - began["t"]
                row = {"case": mark["case"], "clock": "virtual" if vm.virtual_time else "realtime",
                       "emulated_s": round(emulated, 2),
                       "wall_per_emulated": round((now - began["wall"]) / emulated, 3),
                       "qemu_cpu_per_emulated": (round((cpu - began["cpu"]) / emulated, 3)
                                                 if cpu is not None and began["cpu"] is not None
                                                 else None),
                       **{k: mark["result"][k] for k in ("goodput_mbps", "lag_us",
                                                          "guest_cpu_busy", "frames_per_s")}}
                rows.append(row)
                print(line_of(row), file=sys.stderr, flush=True)

        script = (f"cd {dispatch.GUEST_CODE} && exec python3 bench/clock.py --guest "
                  f"--cases {','.join(cases)} --seconds {seconds:g}")
        rc = vm.run(script, cwd=dispatch.GUEST_CODE, env=dispatch.guest_env(vm), on_out=on_out,
                    on_err=lambda s: (sys.stderr.write(s), sys.stderr.flush()))
    if rc != 0:
        raise SystemExit(f"bench/clock.py in the guest failed (exit {rc})")
    return rows


def line_of(r: Dict[str, Any]) -> str:
    lag = r.get("lag_us") or {}
    cpu = r.get("qemu_cpu_per_emulated")
    return (f"{r['case']:<14} {r['clock']:<8} {r['emulated_s']:>6.1f} s emulated  "
            f"wall/emulated {r['wall_per_emulated']:>6.3f}  QEMU CPU/emulated "
            f"{'-' if cpu is None else f'{cpu:.3f}':>6}  goodput {r['goodput_mbps']:>7} Mbit/s  "
            f"lag p50/p99 {lag.get('p50')}/{lag.get('p99')} us  guest busy "
            f"{r['guest_cpu_busy']:.0%}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clocks", default="virtual,realtime")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--seconds", type=float, default=20.0, help="flow length, emulated seconds")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--guest", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    clocks = [c for c in args.clocks.split(",") if c]
    if unknown:
        raise SystemExit(f"--cases {','.join(unknown)}: allowed {', '.join(CASES)}")
    if any(c not in ("virtual", "realtime") for c in clocks):
        raise SystemExit(f"--clocks {args.clocks}: allowed virtual, realtime")
    if args.guest:
        return guest_main(cases, args.seconds)
    from harness.vm.dispatch import needs_vm
    rows: List[Dict[str, Any]] = []
    if needs_vm():
        for clock in clocks:
            rows += host_run(clock, cases, args.seconds)
    else:  # natively: one clock; the marks are read from this process's own run
        for name in cases:
            t0 = time.monotonic()
            run_case(name, args.seconds)
            print(f"{name}: {time.monotonic() - t0:.1f} s wall in all", file=sys.stderr)
    if args.json:
        print(json.dumps({"bench": "clock", "seconds": args.seconds, "rows": rows}, indent=1))
    else:
        print("\n".join(line_of(r) for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
