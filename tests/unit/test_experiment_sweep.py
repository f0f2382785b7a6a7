"""Sweep expansion: order, stable ids, derived seeds, quick mode."""
from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.experiment import schema
from harness.experiment.sweep import QUICK_DURATION, expand, mapping_text, points, run_id_for, shared_items

BASE = """\
name: demo
topology: {builder: chain, hops: 2}
policy: {cwnd_clamp: 4}
flows:
  - {src: first, dst: last, duration: 20}
seed: 7
"""


def exp_with(extra: str = "", **replace: str):
    text = BASE + extra
    for old, new in replace.items():
        text = text.replace(old, new)
    return schema.loads(text)


def test_cartesian_product_first_key_slowest_repetitions_outermost():
    exp = exp_with("sweep:\n  topology.hops: [1, 2]\n  policy.cwnd_clamp: [1, null]\n"
                   "repetitions: 2\n")
    runs = expand(exp)
    assert [(r.repetition, r.point["topology.hops"], r.point["policy.cwnd_clamp"]) for r in runs] == [
        (0, 1, 1), (0, 1, None), (0, 2, 1), (0, 2, None),
        (1, 1, 1), (1, 1, None), (1, 2, 1), (1, 2, None)]
    assert [r.index for r in runs] == list(range(8))
    assert runs[3].params["topology"]["hops"] == 2 and runs[3].params["policy"]["cwnd_clamp"] is None
    assert len({r.run_id for r in runs}) == 8
    assert len({r.seed for r in runs}) == 8


def test_no_sweep_is_one_point():
    assert points({}) == [{}]
    runs = expand(exp_with("repetitions: 3\n"))
    assert len(runs) == 3 and all(r.point == {} for r in runs)


def test_run_id_is_a_pure_function_of_parameters_repetition_and_seed():
    exp = exp_with("sweep:\n  topology.hops: [1, 2]\n")
    first = expand(exp)
    assert [r.run_id for r in first] == [r.run_id for r in expand(exp)]
    # Golden value: changing how ids are computed orphans every stored result; do it on purpose.
    assert run_id_for({"a": 1}, 0, 1) == "30733fc0467d"
    # Extending a sweep keeps the ids of the runs already planned.
    extended = expand(exp_with("sweep:\n  topology.hops: [1, 2, 3]\n"))
    assert [r.run_id for r in extended[:2]] == [r.run_id for r in first]
    # The experiment seed is part of a run's identity and of its seed.
    reseeded = expand(exp_with("sweep:\n  topology.hops: [1, 2]\n", **{"seed: 7": "seed: 8"}))
    assert {r.run_id for r in reseeded}.isdisjoint({r.run_id for r in first})
    assert [r.seed for r in reseeded] != [r.seed for r in first]
    # The name and output do not change what a run is.
    renamed = expand(exp_with("sweep:\n  topology.hops: [1, 2]\noutput: elsewhere\n",
                              **{"name: demo": "name: other"}))
    assert [r.run_id for r in renamed] == [r.run_id for r in first]


def test_a_default_spelled_out_is_the_same_run():
    implicit = expand(exp_with())
    explicit = expand(exp_with(**{"hops: 2}": "hops: 2, mode: ibss, rts: false}"}))
    assert implicit[0].run_id == explicit[0].run_id


def test_flows_without_index_sets_every_flow():
    exp = exp_with("sweep:\n  flows.congestion: [reno, vegas]\n",
                   **{"flows:\n": "flows:\n  - {src: last, dst: first}\n"})
    runs = expand(exp)
    assert [[f["congestion"] for f in r.params["flows"]] for r in runs] == [
        ["reno", "reno"], ["vegas", "vegas"]]


def test_sweeping_top_level_duration_reaches_flows_without_their_own():
    exp = schema.loads(BASE.replace(", duration: 20", "") + "sweep:\n  duration: [10, 30]\n")
    assert [r.params["flows"][0]["duration"] for r in expand(exp)] == [10.0, 30.0]


def test_quick_mode_first_and_last_values_one_repetition_short_flows():
    exp = exp_with("sweep:\n  topology.hops: [1, 2, 3, 4]\n  policy.cwnd_clamp: [1]\n"
                   "repetitions: 5\n")
    runs = expand(exp, quick=True)
    assert [r.point["topology.hops"] for r in runs] == [1, 4]
    assert all(r.repetition == 0 for r in runs)
    assert all(f["duration"] == QUICK_DURATION for r in runs for f in r.params["flows"])
    assert {r.run_id for r in runs}.isdisjoint({r.run_id for r in expand(exp)})


def test_sweep_points_that_resolve_to_the_same_run_are_reported():
    exp = exp_with("sweep:\n  flows[0].congestion: [reno, cubic]\n  policy.congestion: [reno, cubic]\n")
    # flows[0].congestion set explicitly makes policy.congestion irrelevant for the flow, but
    # the policy differs, so all four runs are distinct:
    assert len(expand(exp)) == 4
    exp = exp_with("sweep:\n  duration: [10, 30]\n")  # flow has its own duration: same runs
    with pytest.raises(HarnessError, match="give identical runs"):
        expand(exp)


def test_label_and_expected_seconds():
    exp = exp_with("sweep:\n  policy.cwnd_clamp: [null]\n  topology.rts: [true]\n")
    run = expand(exp)[0]
    assert run.label() == "cwnd_clamp=null rts=on rep=0"
    assert run.expected_seconds() == 20.0


def test_whole_policy_sweep_mixes_policies_that_exclude_each_other():
    """adaptive_window and cwnd_clamp cannot be set together, so a side-by-side comparison sweeps
    whole policy mappings; labels name what differs, not the base each case repeats."""
    exp = schema.loads(
        "name: demo\ntopology: {builder: chain, hops: 2}\n"
        "policy: &base {congestion: reno, delayed_ack: false}\n"
        "flows:\n  - {src: first, dst: last, duration: 20}\n"
        "sweep:\n  policy:\n    - {<<: *base, adaptive_window: true}\n"
        "    - {<<: *base, cwnd_clamp: 3}\n")
    runs = expand(exp)
    assert [r.params["policy"].get("adaptive_window") for r in runs] == [True, None]
    assert [r.params["policy"].get("cwnd_clamp") for r in runs] == [None, 3]
    assert all(r.params["policy"]["delayed_ack"] is False for r in runs)
    assert [r.label() for r in runs] == ["policy=adaptive_window=on rep=0",
                                         "policy=cwnd_clamp=3 rep=0"]


def test_shared_items_and_mapping_text():
    values = [{"a": 1, "b": False}, {"a": 1, "c": None}]
    assert shared_items(values) == (("a", 1),)
    assert mapping_text(values[0], shared_items(values)) == "b=off"
    assert mapping_text(values[1]) == "a=1,c=null"
    assert shared_items([{"a": 1}]) == () and shared_items([1, 2]) == ()
    # stats' hashable form of a mapping (sorted item tuples) reads the same
    assert mapping_text((("b", False), ("a", 1)), (("a", 1),)) == "b=off"


def test_a_swept_list_of_flows_is_labelled_by_its_directions_not_its_dicts():
    from harness.experiment.sweep import flows_text
    crossed = [{"src": "server", "dst": "client", "bytes": 8000000, "count": 1},
               {"src": "client", "dst": "server", "duration": 300.0, "count": 2}]
    assert flows_text(crossed) == "server>client 8M + client>server x2 300s"
    as_items = tuple(tuple(sorted(f.items())) for f in crossed)  # how reports group them
    assert flows_text(as_items) == flows_text(crossed)
    udp = [{"src": "a", "dst": "b", "duration": 20.0},
           {"src": "c", "dst": "d", "protocol": "udp", "bitrate": 500000, "duration": 20.0}]
    assert flows_text(udp) == "a>b 20s + c>d udp 500Kb/s 20s"
    assert flows_text([1, 2]) == "" and flows_text("flows") == "" and flows_text([]) == ""
