"""TCP congestion modules: load, allow, choose per namespace.

A non-init namespace may only select an algorithm that is loaded *and* listed in the root
namespace's ``net.ipv4.tcp_allowed_congestion_control`` (docs/kernel.md, 'Congestion modules').
Order matters: modprobe
first (the sysctl refuses unknown names). That allow-list is the one root-namespace setting
the harness changes; ``AllowListGuard`` restores it on stop, which matters on a native host.
"""
from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional

from harness.errors import HarnessError
from harness.kernel.netns import Node, run
from harness.params import ParamSpec

#: Congestion modules of mainline Linux; reno and cubic are built in.
MAINLINE_MODULES = ("reno", "cubic", "bic", "htcp", "vegas", "veno", "westwood", "illinois", "bbr")
#: The harness's own out-of-tree modules, compiled into the VM image (vm/kmod/): ``hxwestwood``
#: is Westwood+ with RTT_MIN and the filter constant as module parameters (paper 003, E17).
HARNESS_MODULES = ("hxwestwood",)
#: Congestion modules the harness knows.
CONGESTION_MODULES = MAINLINE_MODULES + HARNESS_MODULES
#: Where a loaded module's parameters are (``/sys/module/<module>/parameters/<name>``).
SYS_MODULE = Path("/sys/module")
BUILTIN = ("reno", "cubic")
#: A window limit (congestion or receiver window) in segments (the prompt's ``cwnd N``).
WINDOW_SEGMENTS = ParamSpec("window_segments", "int", "window limit in segments", min=1,
                            max=1024)
#: A window clamp, or null for none: the one rule of ``cwnd_clamp`` and ``rwnd_clamp``
#: (the catalog offers it, the policies check it).
WINDOW_CLAMP = WINDOW_SEGMENTS.variant(name="window_clamp", nullable=True, null_label="unclamped")
ALLOWED_PATH = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
AVAILABLE_PATH = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


def check_congestion(name: str) -> str:
    if name not in CONGESTION_MODULES:
        raise HarnessError(f"congestion module {name!r} is unknown: allowed "
                           + ", ".join(CONGESTION_MODULES))
    return name


def allowed() -> List[str]:
    return ALLOWED_PATH.read_text().split()


def available() -> List[str]:
    return AVAILABLE_PATH.read_text().split()


def loadable(modules_dir: Optional[Path] = None) -> Optional[List[str]]:
    """The congestion modules this kernel offers: available now, built in, or with a
    ``tcp_<name>`` module file (``modules.dep``/``modules.builtin``); None when the module
    lists cannot be read (then nothing is refused in advance)."""
    base = modules_dir or Path("/lib/modules") / os.uname().release
    texts = []
    for fname in ("modules.dep", "modules.builtin"):
        with contextlib.suppress(OSError):
            texts.append((base / fname).read_text())
    if not texts:
        return None
    try:
        have = set(available())
    except OSError:
        have = set()
    text = "\n".join(texts)
    have |= {n for n in CONGESTION_MODULES if re.search(rf"/tcp_{n}\.ko", text)}
    return [n for n in CONGESTION_MODULES if n in have or n in BUILTIN]


def require_modules(wanted: Mapping[str, str], offered: Optional[List[str]] = None) -> None:
    """A clear error for a congestion module this kernel lacks, before anything starts:
    ``wanted`` maps the key that names it (``flows[0].congestion``) to the module."""
    offered = loadable() if offered is None else offered
    if offered is None:
        return
    for key, name in wanted.items():
        if name not in offered:
            raise HarnessError(f"{key} {name!r}: this kernel ({os.uname().release}) has no "
                               f"tcp_{name} module: allowed here {', '.join(offered)}")


def ensure_congestion_modules(names: Iterable[str]) -> Optional[str]:
    """Load ``tcp_<name>`` modules and add them to the root allow-list.

    Returns the allow-list as it was before (for restoring), or None if nothing changed.
    """
    wanted = [check_congestion(n) for n in names]
    have = set(available())
    for name in wanted:
        if name not in have and name not in BUILTIN:
            proc = run(["modprobe", f"tcp_{name}"], check=False)
            if proc.returncode != 0:
                where = (" (the harness's own module: built into the VM image from vm/kmod; "
                         "`harness vm status` shows whether it built)"
                         if name in HARNESS_MODULES else "")
                raise HarnessError(f"congestion module {name!r} cannot be loaded{where}: "
                                   f"{proc.stderr.strip()}")
    before = allowed()
    missing = [n for n in wanted if n not in before]
    if not missing:
        return None
    ALLOWED_PATH.write_text(" ".join(before + missing) + "\n")
    return " ".join(before)


def restore_allowed(value: Optional[str]) -> None:
    """Put the root allow-list back as it was (no-op for None)."""
    if value is not None:  # best effort: a module we loaded may have been removed meanwhile
        with contextlib.suppress(OSError):
            ALLOWED_PATH.write_text(value + "\n")


class AllowListGuard:
    """Remembers the allow-list the first time the harness extends it; restores on ``restore``."""

    def __init__(self) -> None:
        self._original: Optional[str] = None

    def ensure(self, names: Iterable[str]) -> None:
        before = ensure_congestion_modules(names)
        if self._original is None and before is not None:
            self._original = before

    def restore(self) -> None:
        restore_allowed(self._original)
        self._original = None


def module_params(module: str) -> Dict[str, str]:
    """The current parameters of a loaded kernel module (``/sys/module/<module>/parameters``)."""
    base = SYS_MODULE / module / "parameters"
    if not base.is_dir():
        raise HarnessError(f"kernel module {module} is not loaded (no {base})")
    return {p.name: p.read_text().strip() for p in sorted(base.iterdir())}


def set_module_params(module: str, values: Dict[str, str]) -> Dict[str, str]:
    """Write parameters of a loaded module (those with 0644 permissions change at run time)
    and return them as the module reads them back."""
    base = SYS_MODULE / module / "parameters"
    for name, value in values.items():
        path = base / name
        if not path.exists():
            raise HarnessError(f"kernel module {module} has no parameter {name!r}: it has "
                               + ", ".join(module_params(module)))
        path.write_text(f"{value}\n")
    now = module_params(module)
    return {name: now[name] for name in values}


def set_default_congestion(node: Node, name: str) -> None:
    """Per-namespace default congestion control (the module must be allowed first)."""
    node.set_sysctls({"net.ipv4.tcp_congestion_control": check_congestion(name)})
