"""mediumd's command line on a host without hwsim: help, usage and config errors, and
the clear failure when the MAC80211_HWSIM family does not exist (a real run of that path).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.medium.build import ensure_mediumd

CONFIG = """\
seed 1
propagation free_space
defaults phy g txpower 15
radio 02:00:00:00:00:00 name a pos 0 0 0
radio 02:00:00:00:01:00 name b pos 10 0 0
"""


def hwsim_present() -> bool:
    return Path("/sys/module/mac80211_hwsim").exists()


@pytest.fixture(scope="module")
def mediumd() -> Path:
    """The binary the harness runs (built once per source hash, outside the checkout)."""
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("needs make and a C compiler")
    return ensure_mediumd()


def run(binary, *args, timeout=10):
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def test_help_lists_every_option(mediumd):
    proc = run(mediumd, "--help")
    assert proc.returncode == 0
    for opt in ("-c", "--control", "--pcap", "--stats-out", "--log-level"):
        assert opt in proc.stdout


@pytest.mark.parametrize("args, message", [
    ((), "-c CONFIG is required"),
    (("-c", "x.conf", "extra"), 'unexpected argument "extra"'),
    (("-c", "x.conf", "--log-level", "loud"), 'unknown level "loud"'),
    (("--bogus",), "unrecognized option"),
])
def test_usage_errors_exit_2(mediumd, args, message):
    proc = run(mediumd, *args)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_config_errors_name_file_line_and_key(mediumd, tmp_path):
    bad = tmp_path / "bad.conf"
    bad.write_text(CONFIG + "radio 02:00:00:00:02:00 pos 1 2 3 colour blue\n")
    proc = run(mediumd, "-c", bad)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"mediumd: config error: {bad}:6: colour: unknown radio key"
    proc = run(mediumd, "-c", tmp_path / "missing.conf")
    assert proc.returncode == 2
    assert "missing.conf" in proc.stderr and "No such file" in proc.stderr


def test_without_hwsim_the_family_is_not_found(mediumd, tmp_path):
    if hwsim_present():  # checked now: an earlier test may have loaded it
        pytest.skip("mac80211_hwsim is loaded here")
    conf = tmp_path / "ok.conf"
    conf.write_text(CONFIG)
    sock = tmp_path / "ctl.sock"
    proc = run(mediumd, "-c", conf, "--control", sock, "--stats-out", tmp_path / "s.json")
    assert proc.returncode == 1
    # one line, negative errno, and what to do about it
    assert proc.stderr == ("mediumd: error: MAC80211_HWSIM family not found: "
                           "is mac80211_hwsim loaded? (-2: No such file or directory)\n")
    assert not sock.exists() and not (tmp_path / "s.json").exists()
