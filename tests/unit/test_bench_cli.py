"""``harness bench medium`` runs bench/medium_fidelity.py, whose checks other code reaches by
path: the checks build a network and run flows, so they are a bench above the harness's
layers, not a module of the package. Parsing the checks loads that file; nothing is measured
here."""
from __future__ import annotations

import sys

import pytest

from harness import cli
from harness.cli import bench
from harness.cli.bench import load_bench


def test_checks_come_from_the_bench_file_loaded_once():
    fidelity = load_bench("medium_fidelity")
    assert fidelity.__file__.endswith("bench/medium_fidelity.py")
    assert load_bench("medium_fidelity") is fidelity is sys.modules["medium_fidelity"]
    check = fidelity.parse_check("g:54:rts", 10.0, 3.0)
    assert isinstance(check, fidelity.Check) and check.name == "udp_1hop_g_54_rts"
    assert check.rts and check.basic_rates == fidelity.BASIC["g"]
    assert check.expected == pytest.approx(fidelity.expected_udp(check)) and check.expected > 0
    tcp = fidelity.parse_check("b:11:tcp", 5.0, 3.0)
    assert (tcp.protocol, tcp.duration, tcp.tolerance_pct) == ("tcp", 5.0, 3.0)


def test_a_missing_bench_file_is_one_clear_error():
    from harness.errors import HarnessError
    with pytest.raises(HarnessError, match=r"bench/no_such_bench\.py is missing"):
        load_bench("no_such_bench")
    assert "no_such_bench" not in sys.modules


def test_a_bad_check_is_refused_before_anything_runs(capsys, monkeypatch):
    fidelity = load_bench("medium_fidelity")
    monkeypatch.setattr(fidelity, "measure_pass", lambda *a, **k: pytest.fail("measured"))
    assert fidelity.main(["--checks", "n:54"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--checks item 'n:54'" in err[0] and "allowed" in err[0], err


def test_a_bench_script_gets_every_option_after_its_name(monkeypatch):
    seen = []
    monkeypatch.setattr(bench, "_script", lambda name, args: seen.append((name, args)) or 0)
    assert cli.main(["bench", "medium", "--checks", "b:1", "--json"]) == 0
    assert cli.main(["bench", "engine", "--", "--cases", "lan"]) == 0
    assert seen == [("medium_fidelity.py", ["--checks", "b:1", "--json"]),
                    ("engine.py", ["--cases", "lan"])]
    with pytest.raises(SystemExit):  # elsewhere an unknown option is still an error
        cli.main(["doctor", "--json"])
