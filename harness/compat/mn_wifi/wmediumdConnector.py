"""``mn_wifi.wmediumdConnector``: the medium's modes a script names in ``Mininet_wifi(
wmediumd_mode=...)``. ``interference`` (frames decoded by their signal-to-interference ratio)
is how the harness's medium always works; the other modes are refused when used."""
from __future__ import annotations


class WmediumdMode:
    supported = False


class interference(WmediumdMode):  # noqa: N801 - Mininet-WiFi's name
    supported = True


class error_prob(WmediumdMode):  # noqa: N801
    """Fixed error probabilities per link: not a mode here (use the prompt's loss command)."""


class snr(WmediumdMode):  # noqa: N801
    """Fixed SNR per link: not a mode here."""
