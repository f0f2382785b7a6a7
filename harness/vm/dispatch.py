"""Harness commands in UML guests: whether a command goes to one, what a guest is given, and
one guest per command or run.

The guest sees the host's files at their own paths (read-only), and the checkout and Python's
prefix also at fixed paths (``harness.vm.uml.guest_path``), from where the harness runs in it,
natively (``HARNESS_IN_VM``): nothing in the guest then depends on where the checkout lies.
What it must not build or fetch itself is made ready on the host first (``prepare``: the
kernel, mediumd), so that a guest's work, and with it its clock, is the same at every run.
"""
from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, TextIO

from harness.experiment.revision import ENV as REVISION_ENV
from harness.experiment.revision import code_revision
from harness.paths import cache_dir, code_root
from harness.vm.engine import engine, in_guest
from harness.vm.uml import UMLConfig, UMLGuest, guest_argv, guest_path, guest_python
from harness.vm.uml_kernel import UMLKernel, ensure_kernel

#: The guest's harness cache: tmpfs, with the host's built mediumd bound in read-only.
GUEST_CACHE = "/run/hx-cache"


#: The checkout's packages a guest imports, compiled on the host before a guest starts.
PACKAGES = ("harness", "topologies", "policies", "studies")


def prepare(out: TextIO = sys.stderr) -> UMLKernel:
    """Everything a guest needs from the host, built here once: the kernel, mediumd, and the
    checkout's compiled modules."""
    from harness.medium.build import ensure_mediumd
    kernel = ensure_kernel(out=out)
    for target in ("mediumd", "mediumsim"):
        ensure_mediumd(target)
    compile_checkout()
    return kernel


def compile_checkout() -> None:
    """Compile the checkout's modules where they lie (``__pycache__``, as an import would). The
    guest writes none (``PYTHONDONTWRITEBYTECODE``): without them every import there compiles
    the source, and a run in a fresh clone then differed from one in a used checkout (each
    syscall is a scheduling point in inf-cpu time). Up-to-date files are skipped; a checkout
    this user cannot write is left as it is."""
    import compileall
    root = code_root()
    for package in PACKAGES:
        if (root / package).is_dir():
            compileall.compile_dir(str(root / package), quiet=2)


def guest_env(seed: int = 0) -> Dict[str, str]:
    """The environment of a harness command in a UML guest: the caller's ``HARNESS_*``, the
    checkout on the module path, fixed hash and locale settings, a cache of its own."""
    env = {k: v for k, v in os.environ.items() if k.startswith("HARNESS_")}
    for key in ("HARNESS_ENGINE", "HARNESS_CACHE", "HARNESS_UML_KEEP"):
        env.pop(key, None)
    venv_bin = str(Path(guest_python()).parent)
    env.update({"PYTHONPATH": guest_path(code_root()), "HARNESS_IN_VM": "1",
                "HARNESS_VM_CLOCK": "virtual", "HARNESS_GUEST": "uml",
                "HARNESS_CACHE": GUEST_CACHE, "HARNESS_HOST_CACHE": str(cache_dir()),
                "HARNESS_VM_SEED": str(seed), "PYTHONHASHSEED": "0",
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONSAFEPATH": "1", "HOME": "/run/hx-home",
                "LANG": "C.UTF-8", "TERM": os.environ.get("TERM", "dumb"),
                "PATH": f"/run/hx-bin:{venv_bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"})
    revision = code_revision()
    if revision:
        env.setdefault(REVISION_ENV, revision)
    return env


def cache_script() -> str:
    """Shell lines giving the guest its cache: tmpfs, the host's mediumd builds bound in."""
    host = shlex.quote(str(cache_dir() / "mediumd"))
    return (f"mkdir -p {GUEST_CACHE}/mediumd && mount --bind {host} {GUEST_CACHE}/mediumd "
            "2>/dev/null\n")


def run_script(script: str, *, seed: int = 0, output: Optional[Path] = None,
               on_out: Optional[Callable[[str], object]] = None,
               on_err: Optional[Callable[[str], object]] = None,
               console: bool = False, stdin: Optional[bytes] = None,
               variant: Optional[str] = None, cwd: Optional[str] = None,
               env: Optional[Dict[str, str]] = None, quiet: bool = True,
               clock: str = "virtual", out: TextIO = sys.stderr) -> int:
    """``script`` (sh) in a fresh guest from the caller's directory; its exit code."""
    kernel = prepare(out)
    guest = UMLGuest(kernel, UMLConfig(seed=seed, output=output, console=console,
                                       variant=variant, clock=clock))
    if on_out is None:
        on_out = lambda s: (sys.stdout.write(s), sys.stdout.flush())  # noqa: E731
    if on_err is None:
        on_err = lambda s: (sys.stderr.write(s), sys.stderr.flush())  # noqa: E731
    if not quiet:
        print(f"harness: running in a UML guest ({kernel.label()}, virtual time)", file=out,
              flush=True)
    full_env = dict(guest_env(seed), **(env or {}))
    if clock != "virtual":
        full_env["HARNESS_VM_CLOCK"] = "realtime"
    rc = guest.run(cache_script() + script, env=full_env, cwd=cwd or os.getcwd(),
                   on_out=on_out, on_err=on_err, stdin=stdin, out=out)
    if not quiet:
        print(f"harness: the guest's clock stood still at most {guest.longest_stall_s:.0f} wall s "
              f"(the watchdog stops it at {guest.config.watchdog_s:.0f})", file=out, flush=True)
    return rc


def harness_script(argv: List[str]) -> str:
    return f"exec {shlex.quote(guest_python())} -m harness " + " ".join(
        shlex.quote(a) for a in guest_argv(argv))


def needs_vm() -> bool:
    """True when runs go to a guest: the engine is ``uml`` and this process is not in one."""
    return engine() == "uml" and not in_guest()


def maybe_in_vm(argv: List[str]) -> Optional[int]:
    """``harness ARGV`` in a guest when the engine asks for one (the guest sees the host's
    paths as they are); None means: run here."""
    if not needs_vm():
        return None
    return run_script(harness_script(argv), quiet=False)
