"""The few names of Mininet that Mininet-WiFi scripts import (``mininet.log``,
``mininet.node``, ``mininet.link``), on the harness (see ``harness.compat``)."""
