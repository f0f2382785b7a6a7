"""Which build of mac80211 the radios run on: the kernel's own, or one edit of it.

An edit (``vm/kmod/mac80211-<variant>/``: the stock module's own sources, edited by its
``edit.py``) is built into a second UML kernel binary (harness.vm.uml_kernel); a run that asks
for it boots that binary. Before a network creates its radios, :func:`ensure` checks that the
running kernel has the wanted build and loads mac80211_hwsim where it is a module (natively).

An edited build says which it is in ``/sys/module/mac80211/parameters/harness_variant``
(the module parameter its ``edit.py`` adds); the stock one has no such parameter.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from harness.errors import HarnessError
from harness.kernel.netns import run

#: the edits the UML engine builds (vm/kmod/mac80211-<variant>/edit.py)
VARIANTS = ("fail-avg-3.12",)
SYS_MODULE = Path("/sys/module/mac80211")
HWSIM = "mac80211_hwsim"


def check_variant(variant: Optional[str]) -> None:
    if variant is not None and variant not in VARIANTS:
        raise HarnessError(f"mac80211 {variant!r} is unknown: allowed null (the kernel's own) "
                           f"or {', '.join(VARIANTS)}")


def loaded() -> Optional[str]:
    """The loaded build: "stock", a variant's name, or None when mac80211 is not loaded."""
    if not SYS_MODULE.exists():
        return None
    param = SYS_MODULE / "parameters" / "harness_variant"
    return param.read_text().strip() if param.exists() else "stock"


def ensure(variant: Optional[str]) -> None:
    """Check that ``variant`` (None: the kernel's own) is the running mac80211, and load
    mac80211_hwsim (no radios: they are created on demand) where it is a module."""
    check_variant(variant)
    wanted = variant or "stock"
    current = loaded()
    if current not in (None, wanted):
        raise HarnessError(f"mac80211 {wanted!r} was asked for, but this kernel runs {current!r}",
                           hint="run it with the uml engine (the default): a run boots the "
                                "kernel built with the mac80211 it asks for")
    if current is None and variant is not None:
        raise HarnessError(f"mac80211 {variant!r} is not in this kernel: the uml engine builds "
                           f"it into a kernel of its own (vm/kmod/mac80211-{variant})",
                           hint="run it with the uml engine (the default)")
    if not Path(f"/sys/module/{HWSIM}").exists():
        run(["modprobe", HWSIM, "radios=0"])
