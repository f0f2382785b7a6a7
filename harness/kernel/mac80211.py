"""Which build of mac80211 the radios run on: the kernel's own, or one edit of it.

An edit is a module the VM image rebuilds from the guest kernel's own sources
(``vm/kmod/mac80211-<variant>/``, harness.vm.kernel_tree) and keeps outside ``/lib/modules``,
so ``modprobe`` always finds the stock one. Before a network creates its radios,
:func:`ensure` makes the wanted build the loaded one: when another is loaded it unloads
mac80211_hwsim and mac80211 (no radio may exist then: it refuses while any run's namespace
does) and loads the wanted one in their place. Every network asks, the stock build included,
so a run after an edited one gets the kernel's own again.

An edited build says which it is in ``/sys/module/mac80211/parameters/harness_variant``
(the module parameter its ``edit.py`` adds); the stock one has no such parameter.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from harness.errors import HarnessError
from harness.kernel.netns import harness_namespaces, run

#: the edits the VM image builds (vm/kmod/mac80211-<variant>/edit.py)
VARIANTS = ("fail-avg-3.12",)
#: INSTALL_DIR of harness.vm.kernel_tree, as the guest sees it
KMOD_DIR = Path("/usr/lib/harness-kmod")
SYS_MODULE = Path("/sys/module/mac80211")
HWSIM = "mac80211_hwsim"


def module_file(variant: str) -> Path:
    return KMOD_DIR / f"mac80211-{variant}" / "mac80211.ko"


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
    """Make ``variant`` (None: the kernel's own) the loaded mac80211, with mac80211_hwsim
    loaded on top of it (no radios: they are created on demand)."""
    check_variant(variant)
    wanted = variant or "stock"
    # a kernel with the wanted build built in (the UML engine boots one per variant)
    if loaded() == wanted and Path(f"/sys/module/{HWSIM}").exists():
        return
    path = module_file(variant) if variant else None
    if path is not None and not path.is_file():
        raise HarnessError(f"mac80211 {variant!r} is not built on this machine ({path} is "
                           "missing): the harness's VM image builds it "
                           f"(vm/kmod/mac80211-{variant})",
                           hint="run it with the uml engine (the default: a run asking for "
                                "it boots the kernel built with it) or in the QEMU guest "
                                "(`harness vm status` shows what its image built)")
    current = loaded()
    if current == wanted and Path(f"/sys/module/{HWSIM}").exists():
        return
    if current is not None and current != wanted:
        busy = harness_namespaces()
        if busy:
            raise HarnessError(f"cannot load mac80211 {wanted!r} in place of the loaded "
                               f"{current!r}: another run's namespaces exist "
                               f"({', '.join(busy[:3])}{' ...' if len(busy) > 3 else ''})",
                               hint="wait for that run, or remove what a killed run left: "
                                    "harness clean")
        for module in (HWSIM, "mac80211"):  # rmmod: modprobe -r would take cfg80211 too
            if Path(f"/sys/module/{module}").exists():
                run(["rmmod", module])
    if path is not None and loaded() is None:
        depends = run(["modinfo", "-F", "depends", str(path)]).stdout.strip()
        for dep in filter(None, depends.split(",")):
            run(["modprobe", dep])
        run(["insmod", str(path)])
    run(["modprobe", HWSIM, "radios=0"])
    if loaded() != wanted:
        raise HarnessError(f"mac80211 {loaded()!r} is loaded where {wanted!r} was asked for")
