"""Paper 002's stall-nudge reading from synthetic records (the readers and the section, not a
measurement)."""
from __future__ import annotations

from typing import Any, Dict

from studies.p002_mesh_retry import mesh_stall as S

from .test_report_002 import record


def run(i: int, module: str, mbps: float, *, silent: bool, trickle: bool) -> Dict[str, Any]:
    rec = record(i, hops=3, module=module, limit=3, mbps=mbps, seconds=100)
    rec["flows"][0]["ss"] = [{"t": 0.5 * k, "local": "a", "peer": "b", "retrans_total": 5,
                              "backoff": k if silent else 0} for k in range(4)]
    if silent:
        for iv in rec["flows"][0]["intervals"][40:]:
            iv["bytes"] = 0
    if trickle:
        rec["flows"].append({"protocol": "UDP", "throughput_bps": 16e3, "lost_percent": 10.0})
    return rec


def test_the_tcp_flow_alone_is_read_and_the_trickles_delivery_beside_it():
    rec = run(0, "cubic", 5.0, silent=False, trickle=True)
    assert S.tcp_mbps(rec) == 5.0                 # not 5.016: the trickle is left out
    assert S.trickle_delivered(rec) == 0.9
    assert S.trickle_delivered(run(1, "cubic", 5.0, silent=False, trickle=False)) is None


def test_the_section_sets_the_sweeps_stalled_runs_beside_the_trickles():
    sweep = [run(0, "cubic", 2.0, silent=True, trickle=False),
             run(1, "cubic", 6.0, silent=False, trickle=False),
             record(2, hops=5, module="cubic", limit=3, mbps=1.0),      # another point
             record(3, hops=3, module="cubic", limit=7, mbps=7.0)]
    nudged = [run(10, "cubic", 6.0, silent=False, trickle=True),
              run(11, "cubic", 7.0, silent=False, trickle=True)]
    lines = S.section(nudged, sweep, "paper002_retry_sweep")
    assert lines[0].startswith("## The stalls at R = 3")
    assert "| cubic | 2 | 1 | 1 | 4.00 | 2 | 0 | 0 | 6.50 | 90% |" in lines
    assert S.section([], sweep, "paper002_retry_sweep") == []


def test_silent_counts_read_only_the_modules_the_changed_runs_used():
    sweep = [run(0, "cubic", 2.0, silent=True, trickle=False),
             run(1, "cubic", 6.0, silent=False, trickle=False),
             run(2, "veno", 2.0, silent=True, trickle=False)]     # veno: not in the changed runs
    changed = [run(10, "cubic", 6.0, silent=False, trickle=True),
               run(11, "cubic", 2.0, silent=True, trickle=True)]
    assert S.silent_counts(changed, sweep) == (1, 2, 1, 2)
