"""``mininet.node``: the controller and switch classes Mininet-WiFi scripts name.

Switches (and the wired side of access points) are Open vSwitch bridges in standalone mode:
learning switches that need no controller. ``Controller``/``OVSController`` are accepted and
start nothing (a learning switch is what their default application makes of a switch);
``RemoteController`` is refused: what an external controller would install is not known.
"""
from __future__ import annotations

from typing import Any

from harness.errors import HarnessError


class Controller:
    """Accepted; the switches work standalone, so it has nothing to do."""

    def __init__(self, name: str = "c0", **params: Any):
        self.name = name
        self.params = params

    def start(self) -> None:
        """Nothing to start (standalone switches)."""

    def stop(self) -> None:
        """Nothing to stop."""


OVSController = Controller
DefaultController = Controller


class RemoteController(Controller):
    def __init__(self, name: str = "c0", **params: Any):
        raise HarnessError("RemoteController: an external OpenFlow controller is not supported "
                           "(switches here are standalone learning switches); use Controller "
                           "or none")


class OVSKernelSwitch:
    """Mininet's default switch class: an Open vSwitch bridge, standalone."""


OVSSwitch = OVSKernelSwitch
UserSwitch = OVSKernelSwitch


class Host:
    """Mininet's host class (a wired node)."""
