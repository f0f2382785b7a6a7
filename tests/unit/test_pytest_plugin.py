"""The options the VM's pytest inherits from the host's command line (pure logic)."""
from __future__ import annotations

from typing import Any, Dict

import pytest

from harness.testing.pytest_plugin import _passthrough


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
           + [f"tests/papers/test_p.py::t{i}" for i in range(2)]  # weighs 8
           + ["tests/emulation/test_c.py::t0"])
    shards = split_by_module(ids, 2)
    assert sorted(n for s in shards for n in s) == sorted(ids)  # each test once
    modules = [{n.split("::")[0] for n in s} for s in shards]
    assert not modules[0] & modules[1]  # a module stays whole
    assert {"tests/papers/test_p.py"} in [m & {"tests/papers/test_p.py"} for m in modules]
    # the paper suite (8) and test_a (6) go to different guests
    assert not ({"tests/papers/test_p.py", "tests/emulation/test_a.py"} <= modules[0] or
                {"tests/papers/test_p.py", "tests/emulation/test_a.py"} <= modules[1])
    for shard in shards:  # collection order kept inside a guest
        assert shard == sorted(shard, key=ids.index)
    assert split_by_module(ids, 1) == [ids]
    assert len(split_by_module(ids[:2], 4)) == 1  # never more guests than modules
