"""Reports of experiments outside any study, and numbers read from records (synthetic records)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from harness.experiment.results import load_results
from harness.study import study_section as section


def record(i: int, point: Dict[str, Any], *, hops: int, pps: float, clamp: Optional[int] = None,
           delayed: bool = False, mss: int = 1448, count: int = 1,
           extra_policy: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    policy = {"congestion": "reno", "sack": False, "delayed_ack": delayed, "cwnd_clamp": clamp}
    if extra_policy:
        policy.update(extra_policy)
    dur = 10.0
    flows = [{"throughput_bps": pps / count * mss * 8, "bytes": int(pps / count * mss * dur),
              "duration": dur, "mss": mss} for _ in range(count)]
    return {"schema": 1, "run_id": f"r{i:04d}", "experiment": "x", "index": i, "repetition": 0,
            "seed": i, "point": point, "status": "ok", "flows": flows,
            "params": {"topology": {"builder": "chain", "hops": hops, "geometry": "ns2-001"},
                       "policy": policy, "medium": {},
                       "flows": [{"src": "first", "dst": "last", "count": count}]},
            "environment": {"where": "vm", "accel": "tcg", "kernel": "6.1"}}


def store(root: Path, name: str, recs: List[Dict[str, Any]]) -> Path:
    (root / "runs").mkdir(parents=True)
    (root / "experiment.yaml").write_text(f"name: {name}\n")
    for r in recs:
        (root / "runs" / f"{r['run_id']}.json").write_text(json.dumps(r))
    return root


def test_other_experiments_get_no_paper_section(tmp_path):
    root = store(tmp_path / "o", "quick_chain", [record(0, {"topology.hops": 1}, hops=1, pps=1)])
    assert section(load_results(root), root / "report.md") == ""


def with_links(rec: Dict[str, Any], attempts: int, successes: int, drops: int) -> Dict[str, Any]:
    """The medium's per-link counters, split over two links."""
    half = attempts // 2, successes // 2, drops // 2
    rec["medium"] = {"summary": {"links": {
        "a>b": {"attempts": half[0], "successes": half[1], "retry_drops": half[2]},
        "b>a": {"attempts": attempts - half[0], "successes": successes - half[1],
                "retry_drops": drops - half[2]}}}}
    return rec


def test_attempt_success_and_retry_drops_sum_the_links():
    from harness.analysis import records as A
    rec = with_links(record(1, {}, hops=3, pps=30.0), 1000, 930, 3)
    assert A.attempt_success(rec) == pytest.approx(0.93) and A.retry_drops(rec) == 3.0
    bare = record(2, {}, hops=3, pps=30.0)
    assert A.attempt_success(bare) is None and A.retry_drops(bare) is None
    assert A.attempt_success(dict(rec, status="failed")) is None


