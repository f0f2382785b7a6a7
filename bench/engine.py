#!/usr/bin/env python3
"""The engine measured: the same experiment files under UML (and natively, where this host can).

For each case of ``bench/engine/`` (one hop at 11 and 54 Mbit/s, the 7-hop 2 Mbit/s chain, the
32-router campus, the hybrid LAN) and each engine this host can use, runs
``harness run CASE --engine E --jobs 1 --fresh`` and prints, from the stored record: wall
seconds per emulated second (the host's wall seconds of the run over the guest's seconds of
it), the guest's boot, the run's whole wall time, the guest's peak host memory, the goodput
(a sanity check) and the medium's
delivery lag p99 (how late mediumd handed frames to the kernel). The cases with a flow run a
second time with the flow three times as long: the difference gives the marginal cost of an
emulated second of traffic (``flow wall/s``, what the targets below speak of: the cost once the
network is up) and the fixed cost of a run (``fixed s``: boot, Python, set-up, teardown). Then
the four-run ``pair4.yaml`` at --jobs 1 and --jobs 2: the speed-up of two pinned guests.

Targets (issue 60, this 2-core machine): <= 0.1 wall s per emulated s on the 7-hop chain,
<= 0.15 at 11 Mbit/s, <= 0.6 at 54 Mbit/s, campus up in < 3 wall s, < 300 MB per run.

The README's QEMU column was measured with this file at revision d281ef7, the last with the
QEMU engine.

Usage: python3 bench/engine.py [--engines uml,native] [--cases 1hop_b11,...] [--no-slope]
[--json]
(``harness bench engine`` runs it.)
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
CASES = ["1hop_b11", "1hop_g54", "7hop_b2", "campus32", "lan"]
TARGETS = {"1hop_b11": 0.15, "1hop_g54": 0.6, "7hop_b2": 0.1}
#: The cases run a second time with flows three times as long (the marginal cost).
STRETCH = ("1hop_b11", "1hop_g54", "7hop_b2", "campus32")
#: Runs a command and prints the largest peak resident set of its process tree (the guest:
#: UML's kernel process) in kB.
PEAK_RSS = ("import resource, subprocess, sys\n"
            "rc = subprocess.call(sys.argv[1:])\n"
            "print(f'hx-bench-peak-rss-kb {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}',"
            " file=sys.stderr)\n"
            "sys.exit(rc)\n")


def run_case(case: str, engine: str, out: Path, jobs: int = 1,
             stretch: int = 1) -> Dict[str, Any]:
    """One ``harness run`` of the case; ``stretch``: its flows that many times as long."""
    yaml = ROOT / "bench" / "engine" / f"{case}.yaml"
    if stretch != 1:
        yaml = stretched(yaml, stretch, out.parent / f"{case}-x{stretch}.yaml")
    cmd = [sys.executable, "-c", PEAK_RSS, sys.executable, "-m", "harness", "run", str(yaml),
           "--engine", engine, "--jobs", str(jobs), "--output", str(out), "--fresh", "--no-report"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    records = [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))]
    if proc.returncode != 0 or not records:
        return {"case": case, "engine": engine, "error": proc.stderr.strip()[-600:]}
    r = records[0]
    timing = r.get("timing", {})
    guest_s = float(timing.get("seconds") or 0)
    host_s = float(timing.get("host_seconds") or wall)
    flows = r.get("flows") or [{}]
    tree_kb = re.findall(r"hx-bench-peak-rss-kb (\d+)", proc.stderr)
    return {"case": case, "engine": engine, "status": r["status"], "error": r.get("error"),
            "kernel": r["environment"].get("kernel"), "guest_s": guest_s,
            "host_s": round(host_s, 2), "command_wall_s": round(wall, 2),
            "wall_per_emulated_s": round(host_s / guest_s, 3) if guest_s else None,
            "boot_s": timing.get("boot_seconds"),
            "peak_rss_mb": timing.get("host_peak_rss_mb")
            or (round(int(tree_kb[-1]) / 1024, 1) if tree_kb else None),
            "goodput_mbps": round((flows[0].get("throughput_bps") or 0) / 1e6, 3),
            "lag_p99_us": ((r.get("medium") or {}).get("summary") or {}).get("lag_us", {}).get("p99"),
            "runs": len(records)}


def stretched(yaml: Path, factor: int, dest: Path) -> Path:
    """A copy of the experiment file whose flows last ``factor`` times as long."""
    import yaml as pyyaml
    data = pyyaml.safe_load(yaml.read_text())
    flows = data.get("flows") or []
    assert flows, f"{yaml}: no flows to stretch"
    for flow in flows:
        flow["duration"] = float(flow.get("duration", 10)) * factor
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(pyyaml.safe_dump(data))
    return dest


def marginal(short: Dict[str, Any], long: Dict[str, Any]) -> Dict[str, Any]:
    """Wall s per emulated s of traffic once the network is up (the slope between the two
    runs) and the fixed wall cost of a run (the intercept)."""
    d_guest = long["guest_s"] - short["guest_s"]
    if short.get("status") != "ok" or long.get("status") != "ok" or d_guest <= 0:
        return {}
    slope = (long["host_s"] - short["host_s"]) / d_guest
    return {"flow_wall_per_s": round(slope, 3),
            "fixed_wall_s": round(short["host_s"] - slope * short["guest_s"], 2),
            "long_guest_s": long["guest_s"], "long_host_s": long["host_s"]}


def speedup(engine: str, base: Path) -> Dict[str, Any]:
    walls = {}
    for jobs in (1, 2):
        out = base / f"pair4-{engine}-{jobs}"
        t0 = time.monotonic()
        got = run_case("pair4", engine, out, jobs=jobs)
        if "error" in got and got.get("status") is None:
            return {"engine": engine, "error": got["error"]}
        walls[jobs] = time.monotonic() - t0
    return {"engine": engine, "wall_jobs1_s": round(walls[1], 1), "wall_jobs2_s": round(walls[2], 1),
            "speedup": round(walls[1] / walls[2], 2)}


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness bench engine", description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="uml")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--no-speedup", action="store_true")
    parser.add_argument("--no-slope", action="store_true",
                        help="run each case once (no marginal cost per emulated second)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in CASES:
            raise SystemExit(f"--cases: {c!r} is unknown: allowed {', '.join(CASES)}")
    sys.path.insert(0, str(ROOT))
    from harness.vm.engine import availability
    why = availability()
    rows, speed = [], []
    base = Path(tempfile.mkdtemp(prefix="hx-bench-engine-"))
    try:
        for engine in engines:
            if why.get(engine):
                rows.append({"engine": engine, "case": "-", "error": f"not usable here: {why[engine]}"})
                continue
            for case in cases:
                row = run_case(case, engine, base / f"{case}-{engine}")
                if case in STRETCH and not args.no_slope:
                    row.update(marginal(row, run_case(case, engine, base / f"{case}-{engine}-x3",
                                                      stretch=3)))
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
            if not args.no_speedup:
                speed.append(speedup(engine, base))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(json.dumps({"cases": rows, "speedup": speed}, indent=1))
        return 0
    print(f"{'case':10} {'engine':6} {'wall/emul s':>11} {'flow wall/s':>11} {'target':>6} "
          f"{'fixed s':>7} {'boot s':>6} {'run wall s':>10} {'peak MB':>7} {'Mbit/s':>7} "
          f"{'lag p99 us':>10}  kernel")
    for r in rows:
        if r.get("error") and r.get("status") is None:
            print(f"{r['case']:10} {r['engine']:6} error: {r['error']}")
            continue
        target = TARGETS.get(r["case"])
        flow = r.get("flow_wall_per_s")
        fixed = r.get("fixed_wall_s")
        print(f"{r['case']:10} {r['engine']:6} {r['wall_per_emulated_s'] or 0:11.3f} "
              f"{format(flow, '.3f') if flow is not None else '-':>11} "
              f"{'<=' + format(target, 'g') if target else '':>6} "
              f"{format(fixed, '.1f') if fixed is not None else '-':>7} {r['boot_s'] or 0:6.2f} "
              f"{r['host_s']:10.1f} {r['peak_rss_mb'] or 0:7.0f} {r['goodput_mbps']:7.2f} "
              f"{r['lag_p99_us'] if r['lag_p99_us'] is not None else '-':>10}  "
              f"{r['kernel']}" + (f"  FAILED: {r['error']}" if r["status"] != "ok" else ""))
    for s in speed:
        if "error" in s:
            print(f"speed-up {s['engine']}: error: {s['error']}")
        else:
            print(f"speed-up {s['engine']}: 4 runs at --jobs 1 {s['wall_jobs1_s']} s, at --jobs 2 "
                  f"{s['wall_jobs2_s']} s: {s['speedup']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
