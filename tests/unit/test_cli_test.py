"""``harness test``'s marker expression: which suites a flag combination selects."""
import pytest

from harness.cli.test import marker_expression
from harness.errors import HarnessError


def test_marker_expression():
    assert marker_expression(False, False, False) == "not slow"
    assert marker_expression(True, False, False) == ("not emulation and not parallel and not vmhost "
                                                     "and not slow")
    assert marker_expression(False, True, True) == "(emulation or parallel or vmhost)"
    with pytest.raises(HarnessError):
        marker_expression(True, True, False)
