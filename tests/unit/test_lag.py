"""Which runs the medium's delivery lag flags (pure logic over records)."""
from harness.experiment.lag import AUTO, flagged, kind, to_redo


def rec(run_id, hops, clamp, p99_ms, status="ok"):
    return {"run_id": run_id, "status": status,
            "point": {"topology.hops": hops, "policy.cwnd_clamp": clamp},
            "medium": {"summary": {"lag_us": {"p99": p99_ms * 1000.0}}}}


def test_a_kind_is_the_point_without_policy_keys():
    assert kind(rec("a", 3, 1, 5.0)) == kind(rec("b", 3, None, 9.0)) != kind(rec("c", 4, 1, 5.0))


def test_runs_are_judged_against_the_others_of_their_kind():
    runs = [rec("a1", 1, 1, 3.0), rec("a2", 1, 2, 3.2), rec("a3", 1, 3, 7.0),   # 7 > 2 x 3.1
            rec("b1", 9, 1, 9.0), rec("b2", 9, 2, 10.0), rec("b3", 9, 3, 11.0),  # slow, uniform
            rec("c1", 5, 1, 40.0),                                               # alone: no peers
            rec("d1", 2, 1, 3.0), rec("d2", 2, 2, 50.0, status="failed")]        # failed: ignored
    assert [(r["run_id"], m) for r, m in flagged(runs)] == [("a3", 3.1)]
    assert to_redo(runs, AUTO) == ["a3"]
    assert to_redo(runs, 9.5) == ["b2", "b3", "c1"]


def test_two_repetitions_can_be_told_apart():
    assert to_redo([rec("x", 1, 1, 3.0), rec("y", 1, 1, 20.0)], AUTO) == ["y"]
