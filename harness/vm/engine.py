"""Which engine runs the emulation: ``uml`` (the default) or ``native``.

- ``uml``: every run in a User-Mode Linux guest of its own, in virtual time, pinned to one
  host CPU (harness.vm.uml): fast, and one seed gives one result byte for byte, on any host.
  (It replaced a Debian guest under QEMU's instruction counter, retired after revision
  d281ef7: slower, and reruns of one seed differed.)
- ``native``: this host's own kernel on the wall clock (needs root and mac80211_hwsim).

Chosen by ``--engine`` (front ends set ``HARNESS_ENGINE``), else ``HARNESS_ENGINE``, else
``uml``. Inside a guest the engine is always native: the guest is the machine.
"""
from __future__ import annotations

import os
from typing import Dict, List

from harness.errors import HarnessError

ENGINES = ("uml", "native")
DEFAULT = "uml"
ENV = "HARNESS_ENGINE"


def in_guest() -> bool:
    return os.environ.get("HARNESS_IN_VM") == "1"


def engine() -> str:
    """The engine this process sends its runs to."""
    if in_guest():
        return "native"
    value = os.environ.get(ENV, "") or DEFAULT
    if value not in ENGINES:
        raise HarnessError(f"--engine / {ENV}={value!r}: allowed values are {', '.join(ENGINES)}")
    return value


def choose(value: str) -> None:
    """``--engine VALUE``: checked, then set for this process and every child."""
    if value not in ENGINES:
        raise HarnessError(f"--engine {value!r}: allowed values are {', '.join(ENGINES)}")
    os.environ[ENV] = value


def availability() -> Dict[str, str]:
    """For ``harness doctor``: each engine and why this host cannot use it ('' when it can)."""
    import platform

    from harness.kernel.host import hwsim_available
    from harness.vm.uml_kernel import cached_kernel, missing_tools
    out: Dict[str, str] = {}
    if platform.machine() != "x86_64":
        out["uml"] = f"UML guests need an x86_64 host (this one is {platform.machine()})"
    elif os.geteuid() != 0:
        out["uml"] = "needs root (the guest's programs make namespaces)"
    elif cached_kernel() is None and missing_tools():
        out["uml"] = f"its kernel is not built and {', '.join(missing_tools())} is missing to build it"
    else:
        out["uml"] = ""
    out["native"] = "" if os.geteuid() == 0 and hwsim_available() else \
        "this kernel has no mac80211_hwsim (or not root)"
    return out


def usable() -> List[str]:
    return [name for name, why in availability().items() if not why]
