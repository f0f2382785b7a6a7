"""``harness doctor``: what this host can do, what is missing, how to get it."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("doctor", help="check what this host can do and how to get what is missing")
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    from harness.kernel.host import checks, in_vm, native_capable
    results = checks()
    width = max(len(c.name) for c in results)
    for c in results:
        mark = "ok " if c.ok else ("-- " if not c.needed_for_native else "NO ")
        line = f"  {mark} {c.name:<{width}}  {c.detail}"
        if not c.ok and c.fix:
            line += f"\n  {'':3} {'':<{width}}  fix: {c.fix}"
        print(line)
    print()
    from harness.vm.engine import availability, engine
    from harness.vm.uml_kernel import cached_kernel, recipe
    chosen = engine()
    print(f"Engine: {chosen} (--engine or HARNESS_ENGINE change it)")
    for name, why in availability().items():
        extra = ""
        if name == "uml" and not why:
            kernel = cached_kernel()
            extra = (f": {kernel.label()} built, variants {', '.join(kernel.variants()) or 'none'}"
                     if kernel else f": its kernel (Debian's {recipe().package}) is built at "
                     "first use, about 12 minutes once")
        print(f"  {'ok ' if not why else 'NO '} {name:<7} {why or 'usable'}{extra}")
    print()
    if chosen == "uml":
        print("Runs go to User-Mode Linux guests: one per run, virtual time, pinned to one host "
              "CPU each; one seed gives one result (docs/engine.md).")
        return 0 if not availability()["uml"] else 1
    if in_vm():
        print("Running inside a harness guest: emulation runs here.")
    elif native_capable():
        print("This host runs the emulation natively, on the wall clock.")
    else:
        print("This host cannot run mac80211_hwsim natively: use the uml engine (the default).")
        return 1
    return 0
