"""``mininet.link``: ``TCLink`` (a shaped wired link: ``bw=`` Mbit/s) and ``Link``."""
from __future__ import annotations


class Link:
    """A plain veth pair."""


class TCLink(Link):
    """A veth pair shaped to ``bw`` Mbit/s (other shaping parameters are refused)."""
