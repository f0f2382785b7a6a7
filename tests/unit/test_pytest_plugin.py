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
