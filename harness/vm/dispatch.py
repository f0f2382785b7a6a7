"""Run a harness command in a guest: a UML one (the default engine, harness.vm.uml_dispatch)
or the QEMU one (``--engine qemu``, or a host without hwsim before UML); ``native`` runs here."""
from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, TextIO, Tuple

from harness.experiment.revision import ENV as REVISION_ENV
from harness.experiment.revision import code_revision
from harness.kernel.host import in_vm, native_capable
from harness.paths import cache_dir, code_root
from harness.vm.engine import engine
from harness.vm.image import ensure_image
from harness.vm.machine import VM, Share, VMConfig, choose_accel
from harness.vm.uml import split_option

GUEST_CODE = "/mnt/code"
GUEST_CWD = "/mnt/cwd"
GUEST_CACHE = "/mnt/cache"
GUEST_OUT = "/mnt/out"


def clock_label(vm: VM) -> str:
    return "virtual time" if vm.virtual_time else "wall clock"


def guest_env(vm: Optional[VM] = None) -> Dict[str, str]:
    """The environment of a harness command in the guest: the caller's ``HARNESS_*`` settings,
    the guest's paths, and the clock the guest really runs on (``HARNESS_VM_CLOCK``: the
    record's environment names it)."""
    env = {k: v for k, v in os.environ.items() if k.startswith("HARNESS_")}
    if vm is not None:
        env["HARNESS_VM_CLOCK"] = "virtual" if vm.virtual_time else "realtime"
        if vm.config.seed is not None:  # a seeded guest: set orders fixed too
            env["PYTHONHASHSEED"] = "0"
            env["HARNESS_VM_SEED"] = str(vm.config.seed)
    # The checkout is a copy in the guest's memory (vm/guest/rc.sh), so compiled modules are
    # written there, never into the host's checkout, and reused by the next Python process
    # of the same boot. PYTHONSAFEPATH: the current directory (often a 9p share) is not
    # searched for modules: every import would ask the host, and in virtual time each wait
    # makes the guest's clock jump (docs/vm.md).
    env.update({"PYTHONPATH": GUEST_CODE, "HARNESS_IN_VM": "1", "HARNESS_CACHE": GUEST_CACHE,
                "PYTHONSAFEPATH": "1", "HOME": "/root", "LANG": "C.UTF-8"})
    env.pop("HARNESS_FORCE_VM", None)
    revision = code_revision()
    if revision:
        env.setdefault(REVISION_ENV, revision)
    return env


def shares_for(cwd: Path) -> tuple:
    """The guest sees the code at /mnt/code, the caller's directory at /mnt/cwd (or inside
    /mnt/code when it lies in the checkout), and a build cache at /mnt/cache."""
    root = code_root()
    guest_cache = cache_dir() / "guest"
    guest_cache.mkdir(parents=True, exist_ok=True)
    shares = [Share("code", root, GUEST_CODE, snapshot=True), Share("cache", guest_cache, GUEST_CACHE)]
    try:
        guest_cwd = str(Path(GUEST_CODE) / cwd.resolve().relative_to(root))
    except ValueError:
        shares.append(Share("cwd", cwd.resolve(), GUEST_CWD))
        guest_cwd = GUEST_CWD
    return shares, guest_cwd


def boot(*, interactive: bool = False, out: TextIO = sys.stderr) -> VM:
    image = ensure_image(out=out)
    shares, guest_cwd = shares_for(Path.cwd())
    vm = VM(image, VMConfig(accel=choose_accel(image), shares=shares, interactive=interactive,
                            guest_cwd=guest_cwd))
    return vm


def guest_path(host_path: Path, shares: List[Share]) -> Optional[str]:
    """Where the guest sees HOST_PATH (absolute, resolved), or None when no share holds it."""
    for share in shares:
        try:
            rel = host_path.relative_to(share.host_path.resolve())
        except ValueError:
            continue
        return str(Path(share.guest_path) / rel) if rel.parts else share.guest_path
    return None


def map_host_paths(argv: List[str], shares: List[Share]) -> Tuple[List[str], List[Share]]:
    """ARGV with each absolute path that exists on the host rewritten to the guest's view of it,
    and the extra shares that view needs.

    Without this a path such as ``--output /tmp/results`` would name a directory inside the
    guest's throw-away disk, and the results would vanish when the VM stops. A path that no
    share holds gets its own share (the directory itself, or a file's directory).
    ``--opt=/path`` is handled too; paths that do not exist on the host are left alone.
    """
    extra: List[Share] = []
    mapped = []
    for arg in argv:
        prefix, value = split_option(arg)
        if not value.startswith("/") or not Path(value).exists():
            mapped.append(arg)
            continue
        host = Path(value).resolve()
        where = guest_path(host, shares + extra)
        if where is None:
            directory = host if host.is_dir() else host.parent
            n = len(extra) + 1
            extra.append(Share(f"path{n}", directory, f"/mnt/path{n}"))
            where = guest_path(host, extra)
        mapped.append(prefix + str(where))
    return mapped, extra


def host_view(shares: List[Share]) -> Callable[[str], str]:
    """A function that rewrites the guest's paths in a piece of output to the host's, so
    messages name the directories the user knows (``~/harness/results/x``, not
    ``/mnt/code/results/x``).
    The cache share is internal and left alone."""
    pairs = sorted(((s.guest_path, str(s.host_path)) for s in shares if s.tag != "cache"),
                   key=lambda p: -len(p[0]))
    if not pairs:
        return lambda text: text
    pattern = re.compile("|".join(re.escape(g) + r"(?!\w)" for g, _ in pairs))
    table = dict(pairs)
    return lambda text: pattern.sub(lambda m: table[m.group(0)], text)


def run_script_in_vm(script: str, *, out: TextIO = sys.stderr, quiet: bool = False,
                     extra_shares: Optional[List[Share]] = None, host_paths: bool = True,
                     on_out: Optional[Callable[[str], object]] = None,
                     clock: Optional[str] = None, output: Optional[Path] = None) -> int:
    """Boot a guest, run a bash script from the caller's directory, stream output (its
    paths shown as the host's, unless ``host_paths`` is false), stop. ``on_out`` takes the
    script's standard output instead of this process's; ``clock`` overrides the guest's.
    ``output``: the host folder a UML guest may write (a QEMU guest writes its shares)."""
    if engine() == "uml":
        from harness.vm import uml_dispatch
        return uml_dispatch.run_script(script, on_out=on_out, quiet=quiet, out=out,
                                       output=output)
    image = ensure_image(out=out)
    shares, guest_cwd = shares_for(Path.cwd())
    shares = shares + list(extra_shares or [])
    shown = host_view(shares) if host_paths else (lambda text: text)
    accel = choose_accel(image)
    config = VMConfig(accel=accel, shares=shares)
    if clock is not None:
        config.clock = clock
    vm = VM(image, config)
    if on_out is None:
        on_out = lambda s: (sys.stdout.write(shown(s)), sys.stdout.flush())  # noqa: E731
    if not quiet:
        print(f"harness: this host has no mac80211_hwsim; running in the VM "
              f"({accel.upper()}, {clock_label(vm)}, {image.meta['kernel']})", file=out, flush=True)
    with vm:
        if not quiet:
            print(f"harness: VM ready in {vm.boot_seconds:.1f} s", file=out, flush=True)
        return vm.run(script, cwd=guest_cwd, env=guest_env(vm), on_out=on_out,
                      on_err=lambda s: (sys.stderr.write(shown(s)), sys.stderr.flush()))


def output_share(cwd: Path, shares: List[Share]) -> Optional[Share]:
    """A share of CWD for the files a guest command writes there (the prompt's captures),
    when the guest sees CWD inside a snapshot share: the guest's copy of the checkout's top
    level and code directories is in memory (vm/guest/rc.sh), and what is written there
    vanishes with the VM. None when the guest writes CWD through to the host already."""
    here = cwd.resolve()
    holders = [s for s in shares if here == s.host_path.resolve() or s.host_path.resolve() in here.parents]
    if not holders:
        return None
    holder = max(holders, key=lambda s: len(s.host_path.resolve().parts))
    return Share("out", here, GUEST_OUT) if holder.snapshot else None


def host_path_of(guest: str, shares: List[Share]) -> Optional[str]:
    """The host's path of a guest path under a share (None: on the guest's own disk)."""
    for share in sorted(shares, key=lambda s: -len(s.guest_path)):
        root = share.guest_path.rstrip("/")
        if guest == root or guest.startswith(root + "/"):
            return str(share.host_path.resolve()) + guest[len(root):]
    return None


def run_on_console(argv: List[str], *, extra_env: Optional[Dict[str, str]] = None,
                   extra_shares: Optional[List[Share]] = None, out: TextIO = sys.stderr) -> int:
    """``harness ARGV`` in a fresh guest, talking to this terminal through the guest's serial
    console (a pseudo-terminal there: readline, Ctrl-C, full-screen programs work), started
    by the agent as a session of its own on /dev/ttyS0. The guest's terminal takes this
    terminal's size. Returns the command's exit code."""
    import shutil
    image = ensure_image(out=out)
    shares, guest_cwd = shares_for(Path.cwd())
    shares = shares + list(extra_shares or [])
    accel = choose_accel(image)
    vm = VM(image, VMConfig(accel=accel, shares=shares, console=True))
    size = shutil.get_terminal_size((80, 24))
    print(f"harness: this host has no mac80211_hwsim; starting the VM ({accel.upper()}, "
          f"{clock_label(vm)}); the prompt appears here (Ctrl-] x kills the VM)",
          file=out, flush=True)
    env = dict(guest_env(vm), TERM=os.environ.get("TERM", "vt100"), **(extra_env or {}))
    tty = "/dev/ttyS0"
    script = (f"stty rows {size.lines} cols {size.columns} <{tty}; "
              f"exec setsid -w -c {harness_command(argv)} <{tty} >{tty} 2>&1")
    with vm:  # the command's own output goes to the terminal; the agent's is what failed
        return vm.run(script, cwd=guest_cwd, env=env,
                      on_out=lambda s: (out.write(s), out.flush()),
                      on_err=lambda s: (out.write(s), out.flush()))


def harness_command(argv: List[str]) -> str:
    """The guest's shell command line of ``harness ARGV``."""
    return "python3 -m harness " + " ".join(shlex.quote(a) for a in argv)


def harness_argv_script(argv: List[str]) -> str:
    return "exec " + harness_command(argv)


def needs_vm() -> bool:
    """True when runs go to a guest: the engine is ``uml`` or ``qemu`` and this is not one.
    (Before UML, the QEMU guest served hosts without hwsim only: ``qemu`` keeps that.)"""
    chosen = engine()
    if chosen == "native" or in_vm():
        return False
    if chosen == "uml":
        return True
    return os.environ.get("HARNESS_ENGINE") == "qemu" or not native_capable()


def maybe_in_vm(argv: List[str]) -> Optional[int]:
    """Run ``harness ARGV`` in the guest if this host cannot run it; None means: run here."""
    if not needs_vm():
        return None
    if engine() == "uml":  # the guest sees the host's paths as they are
        return run_script_in_vm(harness_argv_script(argv))
    shares, _ = shares_for(Path.cwd())
    argv, extra = map_host_paths(argv, shares)
    return run_script_in_vm(harness_argv_script(argv), extra_shares=extra)
