"""``harness bench medium`` reaches its checks in bench/medium_fidelity.py by path: the
checks build a network and run flows, so they are a bench above the harness's layers, not a
module of the package. Parsing the checks loads that file; nothing is measured here."""
from __future__ import annotations

import sys

import pytest

from harness import cli
from harness.cli.bench import load_bench, parse_check


def test_checks_come_from_the_bench_file_loaded_once():
    fidelity = load_bench("medium_fidelity")
    assert fidelity.__file__.endswith("bench/medium_fidelity.py")
    assert load_bench("medium_fidelity") is fidelity is sys.modules["medium_fidelity"]
    check = parse_check("g:54:rts", 10.0, 3.0)
    assert isinstance(check, fidelity.Check) and check.name == "udp_1hop_g_54_rts"
    assert check.rts and check.basic_rates == fidelity.BASIC["g"]
    assert check.expected == pytest.approx(fidelity.expected_udp(check)) and check.expected > 0
    tcp = parse_check("b:11:tcp", 5.0, 3.0)
    assert (tcp.protocol, tcp.duration, tcp.tolerance_pct) == ("tcp", 5.0, 3.0)


def test_a_missing_bench_file_is_one_clear_error():
    from harness.errors import HarnessError
    with pytest.raises(HarnessError, match=r"bench/no_such_bench\.py is missing"):
        load_bench("no_such_bench")
    assert "no_such_bench" not in sys.modules


def test_a_bad_check_is_refused_before_anything_runs(capsys, monkeypatch):
    monkeypatch.setattr("harness.cli.bench.measure_pass",
                        lambda *a, **k: pytest.fail("measured"))
    assert cli.main(["bench", "medium", "--checks", "n:54"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--checks item 'n:54'" in err[0] and "allowed" in err[0], err
