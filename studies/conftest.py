"""The harness's pytest plugin for the studies' tests too (``pytest studies/...`` alone): its
markers, and emulation tests sent to UML guests (harness/testing/pytest_plugin.py)."""

pytest_plugins = ["harness.testing.pytest_plugin"]
