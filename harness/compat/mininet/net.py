"""``mininet.net``: Mininet's wired-only ``Mininet`` class is not part of the compatibility
layer (nor the pre-2018 Mininet-WiFi API that put stations on it): one clear error."""
from __future__ import annotations

from typing import Any

from harness.errors import HarnessError


class Mininet:
    def __init__(self, *args: Any, **kwargs: Any):
        raise HarnessError("mininet.net.Mininet is not supported: use mn_wifi.net.Mininet_wifi "
                           "(docs/mininet-wifi.md lists what the harness offers)")
