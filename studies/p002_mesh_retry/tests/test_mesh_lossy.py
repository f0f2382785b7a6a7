"""Paper 002's lossy-hops reading from synthetic records (the readers and the section, not a
measurement)."""
from __future__ import annotations

from typing import Any, Dict, List

from studies.p002_mesh_retry import mesh_lossy as L
from studies.p002_mesh_retry import paper as P

from .test_report_002 import record


def lossy(i: int, loss: float, limit: int, mbps: float, backoffs: List[int],
          tries: List[int], limit_drops: int = 0) -> Dict[str, Any]:
    rec = record(i, hops=5, module="cubic", limit=limit, mbps=mbps, seconds=30)
    rec["params"]["medium"] = {"links": [{"a": f"sta{k}", "b": f"sta{k + 1}", "per": loss}
                                         for k in range(1, 6)]}
    rec["params"]["flows"][0]["duration"] = 30
    rec["flows"][0]["ss"] = [{"t": 0.5 * k, "local": "a", "peer": "b", "backoff": b,
                              "rtt_ms": 40.0 + k, "rto_ms": 240.0}
                             for k, b in enumerate(backoffs)]
    rec["medium"] = {"summary": {"radios": {"sta1": {"tries": tries,
                                                     "limit_drops": limit_drops}}}}
    return rec


def test_the_readers_take_loss_timeouts_series_and_drops_from_the_record():
    rec = lossy(0, 0.3, 16, 2.0, [0, 1, 2, 0, 0, 1], [50, 30, 10, 5, 3, 1, 1, 0, 0], 60)
    assert L.hop_loss(rec) == 0.3
    assert L.timeouts(rec) == 3             # 0->1, 1->2, 0->1
    assert P.limit_drops_per_s(rec) == 2.0  # 60 frames over the 30 s flow
    assert L.socket_values(rec, "rto_ms") == [240.0] * 6
    mixed = lossy(1, 0.3, 16, 2.0, [0], [1])
    mixed["params"]["medium"]["links"][0]["per"] = 0.1
    assert L.hop_loss(mixed) is None        # not one loss on every hop: not this reading's run


def test_the_section_reads_each_curve_and_says_where_it_peaks():
    recs = [lossy(i, loss, limit, mbps, [0, 0], [100, 10, 1])
            for i, (loss, limit, mbps) in enumerate(
                [(0.1, 3, 3.0), (0.1, 7, 3.5), (0.1, 31, 3.5),
                 (0.3, 3, 1.0), (0.3, 7, 2.0), (0.3, 31, 1.5)])]
    unpathed = lossy(99, 0.3, 7, 0.0, [0], [1])
    unpathed.update(status="failed", flows=[], error="mesh_path: no ping from sta1 reached sta6 "
                    "in 3 probes of 5 (...): HWMP found no path")
    recs.append(unpathed)
    lines = L.section(recs)
    assert lines[0].startswith("## Hops that lose attempts")
    table = [line for line in lines if line.startswith("| 0.")]
    assert [line.split(" | ")[1] for line in table] == ["3", "7", "31"] * 2
    row = next(line for line in table if line.startswith("| 0.3 (0.51) | 7 | 1 | 2.00 |"))
    assert row.endswith("| 1 |")            # the run without a path, beside the one with a flow
    verdicts = [line for line in lines if line.startswith("- loss")]
    assert "peak at R = 7" in verdicts[1] and "-25.0% from it" in verdicts[1]
    assert verdicts[1].endswith("concave (interior peak, both ends below)")
    assert L.section([]) == []
