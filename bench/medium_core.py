#!/usr/bin/env python3
"""Medium-core benchmark: events per second of the simulation core (not a timed test).

Scenarios, all saturated, run in virtual time by mediumd/build/mediumsim:
  20 stations, one carrier-sense domain, 802.11b 11 Mbit/s (the headline figure)
  20 stations, one carrier-sense domain, 802.11g 54 Mbit/s with RTS/CTS
  20-node chain (200 m spacing, two-ray, 250/450 m ranges), every hop saturated

Prints events, wall time, events/s and the virtual-to-real speed-up, median of
--repeat runs.

Usage: python3 bench/medium_core.py [--seconds S] [--repeat N] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEDIUMD = ROOT / "mediumd"
SIM = MEDIUMD / "build" / "mediumsim"


def radios(names_xy, header: str) -> str:
    return header + "".join(f"radio 02:00:00:00:{i // 256:02x}:{i % 256:02x} name {n} pos {x} {y} 0\n"
                            for i, (n, x, y) in enumerate(names_xy, start=1))


def scenarios(seconds: float):
    n = 20
    cell = [("ap", 10, 0)] + [(f"s{i}", 0, 0) for i in range(n)]
    yield ("20 stations, one CS domain, 802.11b 11 Mbit/s",
           radios(cell, "seed 1\npropagation log_distance exponent 3\ndefaults phy b\n"),
           f"duration {seconds}\n" + "".join(f"flow s{i} ap payload 1500 rate 11\n" for i in range(n)))
    yield ("20 stations, one CS domain, 802.11g 54 Mbit/s RTS/CTS",
           radios(cell, "seed 1\npropagation log_distance exponent 3\ndefaults phy g\n"),
           f"duration {seconds}\n" + "".join(f"flow s{i} ap payload 1500 rate 54 rts\n" for i in range(n)))
    chain = [(f"n{i}", 200 * i, 0) for i in range(n)]
    yield ("20-node chain, every hop saturated, 802.11b 11 Mbit/s",
           radios(chain, "seed 1\npropagation two_ray\ndefaults phy b tx_range 250 cs_range 450\n"),
           f"duration {seconds}\n" + "".join(f"flow n{i} n{i + 1} payload 1500 rate 11\n"
                                              for i in range(n - 1)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="virtual seconds per run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    subprocess.run(["make", "-s", "-C", str(MEDIUMD), "mediumsim"], check=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, conf, scen in scenarios(args.seconds):
            cp, sp = Path(tmp) / "m.conf", Path(tmp) / "s.txt"
            cp.write_text(conf)
            sp.write_text(scen)
            runs = [json.loads(subprocess.run([str(SIM), str(cp), str(sp)], check=True,
                                              capture_output=True, text=True).stdout)
                    for _ in range(args.repeat)]
            wall = statistics.median(r["wall_s"] for r in runs)
            ev = runs[0]["events"]
            results.append({"scenario": name, "virtual_s": args.seconds, "events": ev,
                            "wall_s": wall, "events_per_s": ev / wall,
                            "speedup": args.seconds / wall,
                            "goodput_mbps": sum(f["goodput_mbps"] for f in runs[0]["flows"])})
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"{'scenario':58} {'events':>9} {'wall s':>8} {'events/s':>11} {'x real':>8} {'Mbit/s':>7}")
        for r in results:
            print(f"{r['scenario']:58} {r['events']:9d} {r['wall_s']:8.3f} {r['events_per_s']:11.0f} "
                  f"{r['speedup']:8.1f} {r['goodput_mbps']:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
