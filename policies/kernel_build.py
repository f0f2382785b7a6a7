"""Which build of a kernel module the run uses: ``mac80211: fail-avg-3.12`` runs the radios on
mac80211 rebuilt with Linux 3.12's mesh link-failure average (paper 002's kernel; docs/kernel.md,
"A mac80211 with 3.12's link-failure average"). It changes the topology *description* before the
network starts, because the module must be swapped before any radio exists; after the start it
checks that the build asked for is the one loaded, so a run never reports a build it did not use.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

from harness.kernel import mac80211
from policies import Policy, PolicyViolation, RunContext

if TYPE_CHECKING:
    from harness.net import Topology


class Mac80211Build(Policy):
    """``mac80211: <variant>`` (null: the kernel's own)."""

    name = "mac80211"

    def __init__(self, value: Optional[str]):
        mac80211.check_variant(value)
        super().__init__(value)
        self.in_force: Optional[str] = None

    def prepare(self, topo: Topology) -> None:
        topo.mac80211 = self.value

    def apply(self, ctx: RunContext) -> None:
        self.in_force = mac80211.loaded()
        if self.in_force != (self.value or "stock"):
            raise PolicyViolation(f"mac80211 {self.in_force!r} is loaded where "
                                  f"{self.value!r} was asked for")

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "in_force": self.in_force,
                "mechanism": "the stock mac80211 unloaded and the edited build loaded before "
                             "the radios (harness.kernel.mac80211; /sys/module/mac80211/"
                             "parameters/harness_variant)"}


def mac80211_build(value: Optional[str]) -> Mac80211Build:
    """Factory named in the catalog (``policies.kernel_build:mac80211_build``)."""
    return Mac80211Build(value)
