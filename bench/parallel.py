#!/usr/bin/env python3
"""The same sweep one run at a time and several at once: same results, sooner.

Runs ``experiments/vm/parallel_check.yaml`` (12 runs) with ``harness run --jobs 1`` and with
``--jobs N`` (default 2) into fresh outputs, times both on the host's wall clock, and compares
per sweep point the median goodput against the run-to-run spread (the range of the
repetitions at --jobs 1). Run it on an otherwise idle host: the speed-up is a wall-clock
figure (the results themselves do not depend on host load in virtual time).

With the UML engine (the default) every run boots a guest of its own (about a second). With
the QEMU engine of earlier revisions (retired after d281ef7) each worker booted one VM (about
30 s), a fixed cost longer sweeps amortised: ``--repetitions`` makes the sweep longer (16: 48
runs); docs/parallel.md has the figures of both.

Usage: python3 bench/parallel.py [--jobs N] [--repetitions R] [--out DIR] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENT = ROOT / "experiments" / "vm" / "parallel_check.yaml"


def experiment_file(out: Path, repetitions: Optional[int]) -> Path:
    """The check's experiment file, or a copy with another number of repetitions."""
    if repetitions is None:
        return EXPERIMENT
    import yaml
    doc = yaml.safe_load(EXPERIMENT.read_text())
    doc["repetitions"] = repetitions
    out.mkdir(parents=True, exist_ok=True)
    path = out / EXPERIMENT.name
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def timed_run(experiment: Path, out: Path, jobs: int) -> float:
    cmd = [sys.executable, "-m", "harness", "run", str(experiment), "--output", str(out),
           "--fresh", "--no-report", "--jobs", str(jobs)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return time.monotonic() - t0


def by_point(out: Path) -> Dict[int, List[float]]:
    got: Dict[int, List[float]] = defaultdict(list)
    for path in (out / "runs").glob("*.json"):
        record = json.loads(path.read_text())
        assert record["status"] == "ok", record["error"]
        got[record["params"]["topology"]["hops"]].append(record["flows"][0]["throughput_bps"] / 1e6)
    return dict(got)


def per_run_cost(out: Path) -> Dict[str, float]:
    """Median and largest wall seconds a run cost (``timing.host_seconds``)."""
    wall = []
    for path in (out / "runs").glob("*.json"):
        timing = json.loads(path.read_text()).get("timing", {})
        if "host_seconds" in timing:
            wall.append(timing["host_seconds"])
    if not wall:
        return {}
    return {"median_wall": round(statistics.median(wall), 2), "max_wall": max(wall)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repetitions", type=int, help="repetitions per point (default: the file's 4)")
    ap.add_argument("--out", default="/tmp/harness-parallel-bench")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    load = os.getloadavg()[0]
    experiment = experiment_file(out, args.repetitions)
    serial_s = timed_run(experiment, out / "jobs1", 1)
    parallel_s = timed_run(experiment, out / f"jobs{args.jobs}", args.jobs)
    one, many = by_point(out / "jobs1"), by_point(out / f"jobs{args.jobs}")
    rows: List[Dict[str, Any]] = []
    for hops in sorted(one):
        spread = max(one[hops]) - min(one[hops])
        diff = statistics.median(many[hops]) - statistics.median(one[hops])
        rows.append({"hops": hops, "median_jobs1": round(statistics.median(one[hops]), 3),
                     f"median_jobs{args.jobs}": round(statistics.median(many[hops]), 3),
                     "spread_jobs1": round(spread, 3), "median_diff": round(diff, 3),
                     "within_spread": abs(diff) <= spread})
    report = {"bench": "parallel", "jobs": args.jobs, "load_before": round(load, 2),
              "cores": os.cpu_count(), "wall_s_jobs1": round(serial_s, 1),
              f"wall_s_jobs{args.jobs}": round(parallel_s, 1),
              "runs": sum(len(v) for v in one.values()),
              "speedup": round(serial_s / parallel_s, 2), "points": rows,
              f"host_seconds_per_run_jobs{args.jobs}": per_run_cost(out / f"jobs{args.jobs}")}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"--jobs 1: {serial_s:.0f} s; --jobs {args.jobs}: {parallel_s:.0f} s; "
              f"speed-up {report['speedup']}x on {os.cpu_count()} cores (load before {load:.1f})")
        for r in rows:
            print(f"  {r['hops']} hop(s): median {r['median_jobs1']} vs "
                  f"{r[f'median_jobs{args.jobs}']} Mbit/s, diff {r['median_diff']:+.3f}, "
                  f"run-to-run spread {r['spread_jobs1']} -> "
                  f"{'within' if r['within_spread'] else 'OUTSIDE'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
