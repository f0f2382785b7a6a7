"""``mn_wifi.link``: the link classes scripts pass as ``addLink(..., cls=...)`` or
``Mininet_wifi(link=...)``.

``adhoc`` (an IBSS) and ``mesh`` (802.11s) are supported; ``wmediumd`` names the medium (here
always the harness's own, mediumd). The others exist so a script's imports work and are
refused, naming what is supported, when a script uses them.
"""
from __future__ import annotations


class WirelessLink:
    """Base of the wireless link classes (markers: the harness realises them itself)."""

    supported = False


class adhoc(WirelessLink):  # noqa: N801 - Mininet-WiFi's name
    """An ad hoc (IBSS) network of the stations linked with it."""

    supported = True


class mesh(WirelessLink):  # noqa: N801
    """An 802.11s mesh of the stations linked with it (HWMP finds multi-hop paths)."""

    supported = True


class wmediumd(WirelessLink):  # noqa: N801
    """The wireless medium: the harness always runs its own (mediumd)."""

    supported = True


class ITSLink(WirelessLink):
    """802.11p (vehicles): not supported."""


class WifiDirectLink(WirelessLink):
    """Wi-Fi Direct: not supported."""


class PhysicalWifiDirectLink(WirelessLink):
    """Wi-Fi Direct with a physical card: not supported."""


class physicalMesh(WirelessLink):  # noqa: N801
    """A mesh on a physical card: not supported."""


class _4address(WirelessLink):  # noqa: N801
    """4-address (WDS) links: not supported."""


SUPPORTED = (adhoc, mesh)
