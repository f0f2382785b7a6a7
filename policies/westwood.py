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
from policies import Policy, RunContext

MODULE = "tcp_hxwestwood"
KEYS = ("rtt_min_ms", "filter_c", "filter_norm")
DEFAULTS = {"rtt_min_ms": 50, "filter_c": 7, "filter_norm": True}


class HxWestwood(Policy):
    """``hxwestwood: {rtt_min_ms, filter_c, filter_norm}``; a null field keeps the default."""

    name = "hxwestwood"

    def __init__(self, value: Optional[Dict[str, Any]]):
        value = dict(value or {})
        unknown = set(value) - set(KEYS)
        if unknown:
            raise HarnessError(f"hxwestwood: unknown key(s) {sorted(unknown)}: allowed "
                               + ", ".join(KEYS))
        merged = {k: DEFAULTS[k] if value.get(k) is None else value[k] for k in KEYS}
        for key in ("rtt_min_ms", "filter_c"):
            v = merged[key]
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1000:
                raise HarnessError(f"hxwestwood.{key} {v!r} is invalid: allowed 1..1000")
        if not isinstance(merged["filter_norm"], bool):
            raise HarnessError(f"hxwestwood.filter_norm {merged['filter_norm']!r} is invalid: "
                               "allowed true or false")
        super().__init__(merged)
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
