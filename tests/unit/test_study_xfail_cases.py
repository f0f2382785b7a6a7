"""The claim tests' marks for claims that do not reproduce (harness.testing.study_runs)."""
from __future__ import annotations

import pytest

from harness.testing.study_runs import cases, not_reproduced


def test_a_claim_that_does_not_reproduce_is_a_strict_xfail_with_its_reason():
    mark = not_reproduced("paper: +24 %; ours: -11 %").mark
    assert (mark.name, mark.kwargs) == ("xfail", {"strict": True, "reason": "paper: +24 %; ours: -11 %"})


def test_only_the_named_cases_are_marked_and_keep_their_ids_and_values():
    got = cases(("claim3", "claim5"), {"claim5": "paper: helps; ours: costs"}, values=[0, 1])
    assert [(p.id, p.values) for p in got] == [("claim3", (0,)), ("claim5", (1,))]
    assert not got[0].marks
    assert [(m.name, m.kwargs["reason"]) for m in got[1].marks] == [
        ("xfail", "paper: helps; ours: costs")]
    assert [p.values for p in cases(("3", "5"), {})] == [("3",), ("5",)]


@pytest.mark.parametrize("ids, failing, values", [
    (("claim3",), {"claim4": "a reason for a case that does not exist"}, None),
    (("claim3", "claim5"), {}, [0]),
])
def test_a_reason_for_an_unknown_case_or_a_missing_value_is_an_error(ids, failing, values):
    with pytest.raises(ValueError):
        cases(ids, failing, values=values)
