"""Markers shared by every test directory.

- ``emulation``: needs root and mac80211_hwsim (natively or in the guest:
  ``python3 -m harness vm run -- 'cd /mnt/host && python3 -m pytest tests/emulation -q'``);
  skipped elsewhere with the reason.
- ``slow``: takes more than a few seconds; deselect with ``-m 'not slow'``.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Optional

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "emulation: real namespaces and hwsim radios; needs root and mac80211_hwsim")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")


def emulation_unavailable() -> Optional[str]:
    """Why emulation tests cannot run here, or None when they can."""
    if os.geteuid() != 0:
        return "emulation tests need root"
    if Path("/sys/module/mac80211_hwsim").exists():
        return None
    try:
        probe = subprocess.run(["modprobe", "-n", "mac80211_hwsim"], capture_output=True,
                               text=True, timeout=10)
    except FileNotFoundError:
        probe = None  # no modprobe: no loadable modules here
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"cannot probe mac80211_hwsim: {err}"
    if probe is None or probe.returncode != 0:
        return ("mac80211_hwsim is not available on this kernel "
                "(run them in the guest: python3 -m harness vm run -- "
                "'cd /mnt/host && python3 -m pytest tests/emulation -q')")
    return None


def pytest_collection_modifyitems(config: pytest.Config, items) -> None:
    if not any(item.get_closest_marker("emulation") for item in items):
        return
    reason = emulation_unavailable()
    if reason:
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if item.get_closest_marker("emulation"):
                item.add_marker(skip)
