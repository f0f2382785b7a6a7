"""Root conftest: the harness's pytest plugin provides the markers and sends emulation tests
to the VM on hosts without mac80211_hwsim (see harness/testing/pytest_plugin.py)."""

pytest_plugins = ["harness.testing.pytest_plugin"]
