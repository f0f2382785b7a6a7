"""802.11 MAC settings of every radio: fixed legacy rate or auto (minstrel), RTS/CTS on/off,
retry limit. They change the topology *description* before the network starts, because the
rate decides the IBSS/mesh basic rates at join and the medium reads rate, RTS and retry limit
from the radio table when it starts (hwsim itself ignores the retry limit; mediumd enforces it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

from harness.errors import HarnessError
from harness.kernel import wireless
from harness.params import ParamSpec
from policies import Policy

if TYPE_CHECKING:
    from harness.net import Topology

#: The policy's keys, declared once: the catalog offers them to experiment files and the
#: policy checks its value with them (it can be made from Python as well).
PARAMS = (
    ParamSpec("rate", "choice", "fixed PHY rate in Mbit/s or auto", default=None,
              choices=wireless.RATE_CHOICES, nullable=True, null_label="unchanged"),
    ParamSpec("rts", "bool", "RTS/CTS on (threshold 0) or off", default=None,
              nullable=True, null_label="unchanged"),
    wireless.RETRY_LIMIT.variant(default=None, nullable=True, null_label="unchanged"),
)
KEYS = tuple(spec.name for spec in PARAMS)


class Mac(Policy):
    """``mac: {rate, rts, retry_limit}``; a null field leaves the builder's setting."""

    name = "mac"

    def __init__(self, value: Optional[Dict[str, Any]]):
        value = dict(value or {})
        unknown = set(value) - set(KEYS)
        if unknown:
            raise HarnessError(f"mac: unknown key(s) {sorted(unknown)}: allowed "
                               + ", ".join(KEYS))
        super().__init__({spec.name: spec.validate(value.get(spec.name), f"mac.{spec.name}")
                          for spec in PARAMS})
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
