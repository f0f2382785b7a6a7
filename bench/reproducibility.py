#!/usr/bin/env python3
"""Do reruns of one seed repeat? Five reruns of one run against five seeds of the same point.

Runs ``experiments/vm/reruns_7hop.yaml`` (a 7-hop 802.11b chain, one 30 s TCP flow, five
repetitions: five seeds), then its first repetition (the same run id and seed) five more
times, each into an output of its own, and prints both sets of goodputs with their spread.
Identical reruns show a spread of zero bytes: with the UML engine (the default) every run
boots a guest of its own, seeded by the run.

Usage: python3 bench/reproducibility.py [--out DIR] [--reruns N] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENT = ROOT / "experiments" / "vm" / "reruns_7hop.yaml"


def harness_run(exp: Path, out: Path, extra: List[str]) -> List[Dict[str, Any]]:
    cmd = [sys.executable, "-m", "harness", "run", str(exp), "--output", str(out),
           "--no-report", "--jobs", "1", *extra]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))]


def summary(records: List[Dict[str, Any]]) -> Dict[str, Any]:
    flows = [r["flows"][0] for r in records]
    kbps = [f["throughput_bps"] / 1e3 for f in flows]
    return {"run_ids": sorted({r["run_id"] for r in records}),
            "seeds": sorted({r["seed"] for r in records}),
            "goodput_kbps": [round(k, 2) for k in kbps],
            "bytes": [f.get("bytes") for f in flows],
            "mean_kbps": round(statistics.mean(kbps), 2),
            "stdev_kbps": round(statistics.stdev(kbps), 2) if len(kbps) > 1 else 0.0,
            "range_kbps": round(max(kbps) - min(kbps), 2),
            "identical": len({f.get("bytes") for f in flows}) == 1}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/harness-reproducibility")
    ap.add_argument("--reruns", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    extra: List[str] = []
    out = Path(args.out)
    seeds = harness_run(EXPERIMENT, out / "seeds", extra)
    one = out / "one_seed.yaml"
    one.parent.mkdir(parents=True, exist_ok=True)
    one.write_text(EXPERIMENT.read_text().replace("repetitions: 5", "repetitions: 1"))
    reruns: List[Dict[str, Any]] = []
    for i in range(args.reruns):
        reruns += harness_run(one, out / f"rerun{i}", extra)
        print(f"rerun {i}: {reruns[-1]['flows'][0]['throughput_bps'] / 1e3:.2f} kbit/s",
              file=sys.stderr, flush=True)
    report = {"bench": "reproducibility",
              "five_seeds": summary(seeds), "one_seed_reruns": summary(reruns)}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key in ("five_seeds", "one_seed_reruns"):
            s = report[key]
            print(f"{key:<16} goodput kbit/s {s['goodput_kbps']}  mean {s['mean_kbps']}  "
                  f"stdev {s['stdev_kbps']}  range {s['range_kbps']}  identical {s['identical']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
