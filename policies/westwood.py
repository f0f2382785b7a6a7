"""Westwood+'s constants (paper 003, E17): the parameters of the harness's own module
``tcp_hxwestwood`` (vm/kmod/tcp_hxwestwood: Westwood+ with RTT_MIN and the filter constant C
as module parameters). A flow uses it with ``congestion: hxwestwood``.

Module parameters are global to the kernel (not per namespace or socket), so this policy sets
them for the whole run, before any flow: ``rtt_min_ms`` (Westwood+'s RTT_MIN, the shortest
bandwidth sampling interval; Linux: 50 ms), ``filter_c`` (the low-pass filter's C; Linux: 7)
and ``filter_norm`` (true: the filter divides by C + 1; false: by 8, Linux's ``>> 3`` kept
while C changes). Read back from /sys and recorded.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from harness.errors import HarnessError
from harness.kernel import tcp
from harness.params import ParamSpec
from policies import Policy, RunContext

MODULE = "tcp_hxwestwood"
#: The policy's keys with Linux's values as defaults: the catalog offers them, the policy
#: checks its value with them.
PARAMS = (
    ParamSpec("rtt_min_ms", "int", "Westwood+'s RTT_MIN: shortest bandwidth sampling "
              "interval (ms)", default=50, min=1, max=1000),
    ParamSpec("filter_c", "int", "the bandwidth filter's constant C", default=7, min=1,
              max=1000),
    ParamSpec("filter_norm", "bool", "true: the filter divides by C+1; false: by 8",
              default=True),
)
KEYS = tuple(spec.name for spec in PARAMS)


class HxWestwood(Policy):
    """``hxwestwood: {rtt_min_ms, filter_c, filter_norm}``; a null field keeps the default."""

    name = "hxwestwood"

    def __init__(self, value: Optional[Dict[str, Any]]):
        value = dict(value or {})
        unknown = set(value) - set(KEYS)
        if unknown:
            raise HarnessError(f"hxwestwood: unknown key(s) {sorted(unknown)}: allowed "
                               + ", ".join(KEYS))
        super().__init__({spec.name: spec.validate(
            spec.default if value.get(spec.name) is None else value[spec.name],
            f"hxwestwood.{spec.name}") for spec in PARAMS})
        self.in_force: Dict[str, str] = {}

    def apply(self, ctx: RunContext) -> None:
        ctx.net.ensure_congestion(["hxwestwood"])
        wanted = {"rtt_min_ms": str(self.value["rtt_min_ms"]),
                  "filter_c": str(self.value["filter_c"]),
                  "filter_norm": "Y" if self.value["filter_norm"] else "N"}
        self.in_force = tcp.set_module_params(MODULE, wanted)
        if self.in_force != wanted:
            raise HarnessError(f"hxwestwood: the module reads back {self.in_force}, "
                               f"not {wanted}")

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "in_force": self.in_force,
                "mechanism": f"/sys/module/{MODULE}/parameters (global, set before the flows)"}


def hxwestwood(value: Optional[Dict[str, Any]]) -> HxWestwood:
    """Factory named in the catalog (``policies.westwood:hxwestwood``)."""
    return HxWestwood(value)
