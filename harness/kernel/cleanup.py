"""The clean-up registry: ``harness clean`` runs what each plumbing module registered.

A module that creates something a killed run can leave behind (namespaces, radios, a daemon's
run directory, a VM's folder) registers, when it is imported, how to find and remove it:

    cleanup.add_cleanup_callback("namespaces", remove_namespaces, stage="namespaces",
                                 leftovers=namespaces_left)

``clean(tag)`` then runs every callback, stage by stage (``STAGES``); within a stage, in the
order they were registered. A callback ``fn(tag, report)`` removes the objects of one run
(``tag``) or of every run (``tag`` None) and notes each in ``report``; an exception stops
that callback only, and is reported. ``leftovers(tag)`` lists what still exists (tests use
it to check that ``Network.stop()`` left nothing). A new kind of object is a new callback in
the module that creates it, never an edit here.

Run directories are claimed with an owner file (``claim``): the pid and start time of the
process that made them, so ``harness clean`` can tell a live run's folder from a killed one's.

Nothing is registered by importing this module; ``harness clean`` imports the plumbing
modules (``harness.cli.clean.PLUMBING``), and each registers itself.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Set, Tuple

#: The order clean-up runs in: what runs first, then what lives inside namespaces (radios are
#: deleted from inside), the namespaces, what came back to the root namespace, then files.
STAGES = ("processes", "in namespaces", "namespaces", "root namespace", "files")

#: The file in a run directory naming the process that owns it (``claim``).
OWNER_FILE = "owner.pid"
#: A run directory without an owner file younger than this may be in the middle of being
#: claimed: left alone.
UNCLAIMED_GRACE_S = 60.0


@dataclass
class CleanReport:
    """What ``clean`` removed (kind and name, in order) and what it could not."""

    entries: List[Tuple[str, str]] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)

    def add(self, kind: str, item: str) -> None:
        self.entries.append((kind, item))

    def of(self, kind: str) -> List[str]:
        return [item for k, item in self.entries if k == kind]

    @property
    def empty(self) -> bool:
        return not self.entries


CleanFn = Callable[[Optional[str], CleanReport], None]
LeftoversFn = Callable[[Optional[str]], List[str]]


@dataclass
class Callback:
    name: str
    fn: CleanFn
    stage: str
    leftovers: Optional[LeftoversFn] = None


_CALLBACKS: List[Callback] = []


def add_cleanup_callback(name: str, fn: CleanFn, *, stage: str = "files",
                         leftovers: Optional[LeftoversFn] = None) -> None:
    """Register ``fn(tag, report)`` to run at ``harness clean`` (once per name: a module
    imported twice registers once)."""
    if stage not in STAGES:
        raise ValueError(f"clean-up stage {stage!r} is invalid: allowed {', '.join(STAGES)}")
    _CALLBACKS[:] = [c for c in _CALLBACKS if c.name != name]
    _CALLBACKS.append(Callback(name, fn, stage, leftovers))


def callbacks() -> List[Callback]:
    """The registered callbacks in the order ``clean`` runs them."""
    return sorted(_CALLBACKS, key=lambda c: STAGES.index(c.stage))  # stable: registration order


def clean(tag: Optional[str] = None, log: Callable[[str], None] = lambda _m: None) -> CleanReport:
    """Run every registered callback for one run ``tag`` (or all runs); keep going on errors."""
    report = CleanReport()
    for cb in callbacks():
        shown = len(report.entries)
        try:
            cb.fn(tag, report)
        except Exception as err:  # noqa: BLE001 - keep cleaning; reported at the end
            report.problems.append(f"{cb.name}: {err}")
        for kind, item in report.entries[shown:]:
            log(f"removed {kind}: {item}")
    return report


def harness_objects_left(tag: Optional[str] = None) -> List[str]:
    """What of a run (or of all runs) still exists, as every registered module sees it."""
    return [item for cb in callbacks() if cb.leftovers is not None for item in cb.leftovers(tag)]


# -- helpers for the callbacks --------------------------------------------------------------
def ancestors() -> Set[int]:
    """This process and its parents (never killed by clean-up: ``harness clean`` may itself
    run under a harness process)."""
    out = set()
    pid: Optional[int] = os.getpid()
    while pid is not None and pid > 1:
        out.add(pid)
        pid = parent_pid(pid)
    return out


def _stat_field(pid: int, index: int) -> Optional[int]:
    """Field ``index`` of /proc/PID/stat after the command name (0: the state), None if there
    is no such process."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[index])
    except (OSError, ValueError, IndexError):
        return None


def start_time(pid: int) -> Optional[int]:
    """When the process started (clock ticks since boot), None if there is no such process:
    with the pid, it names one process even after its pid is reused."""
    return _stat_field(pid, 19)


def parent_pid(pid: int) -> Optional[int]:
    return _stat_field(pid, 1)


def cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def pids() -> List[int]:
    return [int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()]


def kill_all(victims: List[int], timeout: float = 2.0) -> None:
    """SIGTERM, then SIGKILL what is still there after ``timeout``."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in victims:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in victims):
            time.sleep(0.05)


def die_with_parent() -> None:
    """``preexec_fn`` for a child that must not outlive the thread that started it: the
    kernel sends it SIGKILL when that thread dies (PR_SET_PDEATHSIG), even on SIGKILL."""
    import ctypes
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def claim(directory: Path) -> None:
    """Write this process as the owner of a run directory (read by ``owner_alive``)."""
    (directory / OWNER_FILE).write_text(f"{os.getpid()} {start_time(os.getpid())}\n")


def release(directory: Path) -> None:
    """The directory is no longer a run's: it is kept on purpose (a log, a capture)."""
    with contextlib.suppress(OSError):
        (directory / OWNER_FILE).unlink()


def owner_alive(directory: Path) -> Optional[bool]:
    """True if the process that claimed the directory still runs, False if it is gone,
    None if the directory has no (readable) owner file."""
    try:
        pid_text, start_text = (directory / OWNER_FILE).read_text().split()
        pid, start = int(pid_text), int(start_text)
    except (OSError, ValueError):
        return None
    return start_time(pid) == start


def abandoned_dirs(base: Path, pattern: str, *, unclaimed: bool = False,
                   now: Optional[float] = None) -> List[Path]:
    """Directories ``base/pattern`` (a glob) whose owner is gone: claimed by a dead process,
    and with ``unclaimed``, also those never claimed, older than ``UNCLAIMED_GRACE_S`` and named
    by no process's command line (made by a harness without owner files). Without it, an
    unclaimed directory is one ``release``d: kept on purpose."""
    out = []
    now = time.time() if now is None else now
    for path in sorted(base.glob(pattern)):
        if not path.is_dir() or path.is_symlink():
            continue
        alive = owner_alive(path)
        if alive is None:
            if not unclaimed:
                continue
            try:
                young = now - path.stat().st_mtime < UNCLAIMED_GRACE_S
            except OSError:
                continue
            if young or processes_naming(path):
                continue
        elif alive:
            continue
        out.append(path)
    return out


def processes_naming(path: Path) -> List[int]:
    """Pids (not ours) whose command line names ``path`` (QEMU, mediumd: their sockets and
    configs live in their run directory)."""
    needle = f"{path}/"
    mine = ancestors()
    return [pid for pid in pids() if pid not in mine and needle in cmdline(pid)]


def remove_dir(path: Path) -> None:
    shutil.rmtree(path)


def remove_abandoned(path: Path, what: str, report: CleanReport) -> None:
    """Kill the processes still serving an abandoned run directory, then remove it; both go
    into the report (``what`` names the directory's kind, e.g. "VM folder")."""
    serving = processes_naming(path)
    for pid in serving:
        report.add("process", f"{pid} {cmdline(pid)[:80]}")
    kill_all(serving)
    remove_dir(path)
    report.add(what, str(path))


# -- run directories of a run's daemons ----------------------------------------------------
def new_run_dir(prefix: str) -> Path:
    """A fresh directory ``<tmp>/<prefix>XXXXXXXX`` claimed by this process (``claim``), for a
    daemon's sockets, configs and logs."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    claim(path)
    return path


def register_run_dirs(name: str, pattern: Callable[[Optional[str]], str],
                      what: str) -> Tuple[CleanFn, LeftoversFn]:
    """Register the clean-up of run directories ``<tmp>/pattern(tag)`` (a glob) whose owner was
    killed, with the processes still serving them; a claimed one is a leftover (its run
    removes it when it stops). ``what`` names such a directory in reports. Returns the two
    callbacks registered (clean-up, leftovers)."""
    def clean_dirs(tag: Optional[str], report: CleanReport) -> None:
        for path in abandoned_dirs(Path(tempfile.gettempdir()), pattern(tag)):
            remove_abandoned(path, what, report)

    def left(tag: Optional[str]) -> List[str]:
        base = Path(tempfile.gettempdir())
        return [f"{what} {p}" for p in sorted(base.glob(pattern(tag)))
                if owner_alive(p) is not None]

    add_cleanup_callback(name, clean_dirs, stage="files", leftovers=left)
    return clean_dirs, left
