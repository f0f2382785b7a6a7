"""802.11 MAC settings of every radio: fixed legacy rate or auto (minstrel), RTS/CTS on/off,
retry limit. They change the topology *description* before the network starts, because the
rate decides the IBSS/mesh basic rates at join and the medium reads rate, RTS and retry limit
from the radio table when it starts (hwsim itself ignores the retry limit; mediumd enforces it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

from harness.errors import HarnessError
from harness.kernel import wireless
from policies import Policy

if TYPE_CHECKING:
    from harness.net import Topology

KEYS = ("rate", "rts", "retry_limit")


class Mac(Policy):
    """``mac: {rate, rts, retry_limit}``; a null field leaves the builder's setting."""

    name = "mac"

    def __init__(self, value: Optional[Dict[str, Any]]):
        value = dict(value or {})
        unknown = set(value) - set(KEYS)
        if unknown:
            raise HarnessError(f"mac: unknown key(s) {sorted(unknown)}: allowed "
                               + ", ".join(KEYS))
        rts = value.get("rts")
        if rts is not None and not isinstance(rts, bool):
            raise HarnessError(f"mac.rts {rts!r} is invalid: allowed true, false or null")
        retry = value.get("retry_limit")
        if retry is not None and (isinstance(retry, bool) or not isinstance(retry, int)
                                  or not 1 <= retry <= 31):
            raise HarnessError(f"mac.retry_limit {retry!r} is invalid: allowed 1..31 or null")
        super().__init__({k: value.get(k) for k in KEYS})
        self.applied: Dict[str, Any] = {}

    @property
    def active(self) -> bool:
        return any(v is not None for v in self.value.values())

    def prepare(self, topo: Topology) -> None:
        rate, rts, retry = (self.value[k] for k in KEYS)
        radios = list(topo.stations.values()) + list(topo.access_points.values())
        for spec in radios:
            if rate is not None:
                spec.rate = None if rate == "auto" else wireless.check_rate(rate, spec.phy)
            if rts is not None:
                spec.rts = rts
            if retry is not None:
                spec.retry_limit = retry
        if topo.stations:
            first = next(iter(topo.stations.values()))
            self.applied = {"rate": "auto" if first.rate is None else first.rate,
                            "rts": first.rts, "retry_limit": first.retry_limit}

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "in_force": self.applied,
                "mechanism": "radio settings before start (iw bitrates / rts / retry)"}


def apply(value: Optional[Dict[str, Any]]) -> Mac:
    """Factory named in the catalog (``policies.mac:apply``)."""
    return Mac(value)
