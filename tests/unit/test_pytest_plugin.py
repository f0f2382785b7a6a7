"""The options the VM's pytest inherits from the host's command line (pure logic), and the
outcomes that cross between the VM's pytest and the host's (strict xfails among them)."""
from __future__ import annotations

from typing import Any, Dict

import pytest

from harness.testing.pytest_plugin import _passthrough

pytest_plugins = ["pytester"]


class Options:
    def __init__(self, **values: Any):
        self.values: Dict[str, Any] = values

    def getoption(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)


@pytest.mark.parametrize("values, expected", [
    ({}, ["-rfE"]),
    ({"capture": "fd", "reportchars": "fE"}, ["-rfE"]),
    ({"exitfirst": True, "capture": "no"}, ["-x", "-s", "-rfE"]),
    ({"reportchars": "P"}, ["-rfEP"]),
    ({"reportchars": "N"}, ["-rfE"]),      # failures are always summarised
])
def test_guest_sees_exitfirst_capture_and_report_chars(values, expected):
    assert _passthrough(Options(**values)) == expected


def test_emulation_batch_splits_by_whole_modules_balanced():
    from harness.testing.pytest_plugin import split_by_module
    ids = ([f"tests/emulation/test_a.py::t{i}" for i in range(6)]
           + [f"tests/emulation/test_b.py::t{i}" for i in range(3)]
           + [f"studies/s/tests/test_p.py::t{i}" for i in range(2)]  # weighs 8
           + ["tests/emulation/test_c.py::t0"])
    shards = split_by_module(ids, 2)
    assert sorted(n for s in shards for n in s) == sorted(ids)  # each test once
    modules = [{n.split("::")[0] for n in s} for s in shards]
    assert not modules[0] & modules[1]  # a module stays whole
    assert {"studies/s/tests/test_p.py"} in [m & {"studies/s/tests/test_p.py"} for m in modules]
    # the paper suite (8) and test_a (6) go to different guests
    assert not ({"studies/s/tests/test_p.py", "tests/emulation/test_a.py"} <= modules[0] or
                {"studies/s/tests/test_p.py", "tests/emulation/test_a.py"} <= modules[1])
    for shard in shards:  # collection order kept inside a guest
        assert shard == sorted(shard, key=ids.index)
    assert split_by_module(ids, 1) == [ids]
    assert len(split_by_module(ids[:2], 4)) == 1  # never more guests than modules


class ScriptedBatch:
    """A RemoteBatch whose guests are scripted: each call answers with the next
    (outcomes, error) pair, recording which tests it was asked to run."""

    def __init__(self, answers):
        from harness.testing.pytest_plugin import RemoteBatch
        self.batch = RemoteBatch.__new__(RemoteBatch)
        self.batch.outcomes = {}
        import threading
        self.batch._lock = threading.Lock()
        self.asked = []
        answers = list(answers)

        def run_guest(index, nodeids, write, prefixed):
            self.asked.append(list(nodeids))
            return answers.pop(0)
        self.batch._run_guest = run_guest  # type: ignore[method-assign]


def test_a_shard_whose_guest_hung_goes_on_in_a_fresh_guest():
    ids = ["m.py::a", "m.py::b", "m.py::c", "m.py::d"]
    hung = "the guest's clock stopped at 164.05 s for 120 wall s"
    scripted = ScriptedBatch([
        ({"m.py::a": {"outcome": "passed"}, "m.py::b": {"outcome": "running"}}, hung),
        ({"m.py::c": {"outcome": "failed", "longrepr": "assert 1 == 2"},
          "m.py::d": {"outcome": "passed"}}, None)])
    lines = []
    scripted.batch._run_shard(0, ids, lines.append, True)
    assert scripted.asked == [ids, ["m.py::c", "m.py::d"]]   # b is not run again
    out = scripted.batch.outcomes
    assert out["m.py::a"] == {"outcome": "passed"}
    assert out["m.py::b"]["outcome"] == "failed" and hung in out["m.py::b"]["longrepr"]
    assert "during this test" in out["m.py::b"]["longrepr"]
    assert out["m.py::c"]["outcome"] == "failed" and out["m.py::d"]["outcome"] == "passed"
    assert any("fresh guest" in line for line in lines)


def test_a_shard_whose_guests_make_no_progress_fails_its_tests_once():
    ids = ["m.py::a", "m.py::b"]
    scripted = ScriptedBatch([({}, "the UML guest stopped without an exit status")])
    scripted.batch._run_shard(0, ids, lambda text: None, False)
    assert len(scripted.asked) == 1   # no second guest for a guest that ran nothing
    assert [o["outcome"] for o in scripted.batch.outcomes.values()] == ["failed", "failed"]
    assert all("without an exit status" in o["longrepr"]
               for o in scripted.batch.outcomes.values())


def test_a_shard_stops_taking_guests_after_the_restart_limit():
    from harness.testing.pytest_plugin import SHARD_RESTARTS
    ids = [f"m.py::t{i}" for i in range(SHARD_RESTARTS + 3)]
    answers = [({ids[i]: {"outcome": "running"}}, "hung") for i in range(SHARD_RESTARTS + 1)]
    scripted = ScriptedBatch(answers)
    scripted.batch._run_shard(0, ids, lambda text: None, False)
    assert len(scripted.asked) == SHARD_RESTARTS + 1
    assert len(scripted.batch.outcomes) == len(ids)
    assert all(o["outcome"] == "failed" for o in scripted.batch.outcomes.values())


# -- strict xfails across the VM boundary: the guest judges, the host reports its verdict -----
XFAIL_TESTS = '''
import pytest

@pytest.mark.xfail(strict=True, reason="paper: +24 %; ours: -11 %")
def test_still_fails():
    assert False

@pytest.mark.xfail(strict=True, reason="paper: +24 %; ours: -11 %")
def test_now_passes():
    pass

def test_plain():
    pass

@pytest.mark.skip(reason="no tool here")
def test_skipped():
    pass
'''


def test_the_guest_records_an_xfail_as_such_and_a_strict_xpass_as_a_failure(pytester):
    import json
    pytester.makepyfile(test_x=XFAIL_TESTS)
    report = pytester.path / "outcomes.json"
    pytester.runpytest_inprocess("-p", "harness.testing.pytest_plugin",
                                 f"--harness-report={report}")
    got = {k.split("::")[1]: v for k, v in json.loads(report.read_text()).items()}
    assert got["test_still_fails"] == {"outcome": "xfailed", "reason": "paper: +24 %; ours: -11 %"}
    assert got["test_now_passes"]["outcome"] == "failed"
    assert "XPASS(strict)" in got["test_now_passes"]["longrepr"]
    assert got["test_plain"] == {"outcome": "passed"}
    assert got["test_skipped"]["outcome"] == "skipped"


def test_the_host_reports_the_guests_verdicts_and_judges_no_xfail_again(pytester):
    pytester.makeconftest('''
import pytest
from harness.testing.pytest_plugin import RemoteBatch, RemoteItem

OUTCOMES = {
    "test_x.py::test_still_fails": {"outcome": "xfailed", "reason": "paper: +24 %; ours: -11 %"},
    "test_x.py::test_now_passes": {"outcome": "failed",
                                   "longrepr": "[call] [XPASS(strict)] paper: +24 %; ours: -11 %"},
    "test_x.py::test_plain": {"outcome": "passed"},
    "test_x.py::test_skipped": {"outcome": "skipped", "reason": "no tool here"},
}

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    batch = RemoteBatch.__new__(RemoteBatch)
    batch.outcomes = OUTCOMES
    for i, item in enumerate(items):
        items[i] = RemoteItem.from_parent(item.parent, name=item.name, batch=batch,
                                          original=item)
''')
    pytester.makepyfile(test_x=XFAIL_TESTS)
    result = pytester.runpytest_inprocess("-rxs")
    # the strict xfail that passed in the guest stays a failure here, not an expected one
    result.assert_outcomes(passed=1, failed=1, skipped=1, xfailed=1)
    result.stdout.fnmatch_lines(["*XPASS(strict)*"])
