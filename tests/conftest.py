"""Root conftest: the harness's pytest plugin provides the markers and sends emulation tests
to UML guests, the default engine (see harness/testing/pytest_plugin.py)."""

pytest_plugins = ["harness.testing.pytest_plugin"]
