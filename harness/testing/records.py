"""Synthetic run records for tests of analyses and reports: a results directory written from
records made in the test, in the store's layout (``runs/<run_id>.json``), and a chain run's
minimal record. Tests that read records judge the reading, not an emulation."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional


def store_records(root: Path, name: str, records: List[Dict[str, Any]]) -> Path:
    """A results directory at ``root`` for experiment ``name`` holding ``records``."""
    (root / "runs").mkdir(parents=True)
    (root / "experiment.yaml").write_text(f"name: {name}\n")
    for rec in records:
        (root / "runs" / f"{rec['run_id']}.json").write_text(json.dumps(rec))
    return root


def chain_record(i: int, point: Dict[str, Any], *, hops: int, pps: float,
                 clamp: Optional[int] = None, delayed: bool = False, mss: int = 1448,
                 count: int = 1, extra_policy: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Run ``i`` of a chain of ``hops`` whose ``count`` flows together delivered ``pps``
    segments of ``mss`` bytes per second for 10 s."""
    policy = {"congestion": "reno", "sack": False, "delayed_ack": delayed, "cwnd_clamp": clamp}
    policy.update(extra_policy or {})
    dur = 10.0
    flows = [{"throughput_bps": pps / count * mss * 8, "bytes": int(pps / count * mss * dur),
              "duration": dur, "mss": mss} for _ in range(count)]
    return {"schema": 1, "run_id": f"r{i:04d}", "experiment": "x", "index": i, "repetition": 0,
            "seed": i, "point": point, "status": "ok", "flows": flows,
            "params": {"topology": {"builder": "chain", "hops": hops, "geometry": "ns2-001"},
                       "policy": policy, "medium": {},
                       "flows": [{"src": "first", "dst": "last", "count": count}]},
            "environment": {"where": "vm", "accel": "tcg", "kernel": "6.1"}}


def with_links(rec: Dict[str, Any], attempts: int, successes: int, drops: int) -> Dict[str, Any]:
    """``rec`` with the medium's per-link counters: the totals split over two links."""
    half = attempts // 2, successes // 2, drops // 2
    rec["medium"] = {"summary": {"links": {
        "a>b": {"attempts": half[0], "successes": half[1], "retry_drops": half[2]},
        "b>a": {"attempts": attempts - half[0], "successes": successes - half[1],
                "retry_drops": drops - half[2]}}}}
    return rec
