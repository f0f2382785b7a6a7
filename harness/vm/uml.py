"""One User-Mode Linux guest in virtual time: boot, run one shell script, power off.

A guest is one host process (the UML kernel) pinned to one host CPU; its processes are host
processes it traces. ``time-travel=inf-cpu``: CPU work costs no guest time, the guest's clock
jumps from timer to timer, so results depend on nothing but what the guest is given. Its root
is the host's ``/`` through hostfs, read-only; scratch is tmpfs; it writes only its run folder
(``/run/hx`` in the guest: the script's output, exit status and heartbeat) and at most one host
folder (``UMLConfig.output``, at its own path). ``vm/uml/init.sh`` is its PID 1.

What may differ between two runs of one seed is kept off the kernel's random state: the host's
randomness is cut off and only ``HX_SEED`` of the command line is mixed in
(``vm/uml/patches``), the boot's wall clock is fixed (``time-travel-start``).

Hazards (docs/engine.md): anything that spins stops the guest's clock; a wall-clock watchdog
(``HARNESS_UML_WATCHDOG`` seconds without the guest's clock moving) kills such a guest and says
which guest process was running. The UML process gets PR_SET_PDEATHSIG, so it dies with the
harness even on SIGKILL; its run folder is claimed and ``harness clean`` removes what a killed
harness left.
"""
from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable, Dict, List, Optional, TextIO, Tuple

from harness.errors import HarnessError
from harness.kernel import cleanup
from harness.paths import cache_dir, code_root, project_file
from harness.vm.uml_kernel import UMLKernel

RUNDIR_PREFIX = "hx-uml-"
#: Where a guest sees the checkout, Python's prefix and the working folder: fixed paths, so
#: nothing in the guest (module paths, the interpreter's path, its environment) depends on
#: where they lie on the host. With them at their own paths, a clone elsewhere gave results
#: 0.2-1 % different (docs/engine.md, "Determinism").
GUEST_SRC = "/run/hx-src"
GUEST_CHECKOUT = "/run/hx-checkout"
GUEST_PREFIX = "/run/hx-prefix"
GUEST_CWD = "/run/hx-cwd"
#: Top-level entries of a checkout that are never code: a listing of the checkout's top does
#: not show them in a guest (without git to tell what is tracked).
NOT_CODE = ("results", "build", "dist")
#: The guest's wall clock at boot (2023-11-14): fixed, so the host's clock never leaks in.
TIME_TRAVEL_START_NS = 1_700_000_000_000_000_000
#: Wall seconds without the guest's clock advancing before the watchdog kills it. Not short:
#: work in the guest that never waits (Python parsing a long run's capture, a campus being
#: set up) also holds the clock, for tens of wall seconds under ptrace on a loaded host.
WATCHDOG_ENV = "HARNESS_UML_WATCHDOG"
DEFAULT_WATCHDOG_S = 600.0
#: ``HARNESS_UML_KEEP=1`` keeps every run folder (to read a guest's files after it stopped).
KEEP_ENV = "HARNESS_UML_KEEP"


def _real(path: str) -> str:
    """PATH absolute with its folders resolved but not its last part (a venv's ``python`` is
    a symlink to the base interpreter: resolving it would leave the venv)."""
    path = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def guest_view() -> List[Tuple[str, str]]:
    """(host folder, guest folder) of the checkout and Python's prefix, the deeper first (a
    ``.venv`` lies inside the checkout)."""
    pairs = [(str(code_root()), GUEST_CHECKOUT), (os.path.realpath(sys.prefix), GUEST_PREFIX)]
    return sorted(pairs, key=lambda pair: -len(pair[0]))


@functools.lru_cache(maxsize=1)
def checkout_entries() -> Tuple[str, ...]:
    """The checkout's top-level entries the guest's ``GUEST_SRC`` shows: git's tracked ones,
    or without git every one but data, and neither hidden ones (``.ci``, ``.gitignore``). Only these, so that what else lies in
    a used checkout (``.venv``, tool caches, results) is not listed by a guest's imports: a
    longer listing alone moved a run's results (docs/engine.md, "Determinism")."""
    root = code_root()
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                                check=True, timeout=60).stdout.decode()
        names = {f.split("/", 1)[0] for f in listed.split("\0") if f}
    except (OSError, subprocess.SubprocessError):
        names = {e for e in os.listdir(root) if not e.startswith(".") and e not in NOT_CODE
                 and not e.endswith(".egg-info")}
    return tuple(sorted(n for n in names if (root / n).exists() and "\n" not in n
                        and not n.startswith(".")))


def guest_path(path: str | Path) -> str:
    """Where a guest sees the host's PATH: under the checkout at ``GUEST_SRC`` (its code) or
    ``GUEST_CHECKOUT`` (the rest), under Python's prefix at ``GUEST_PREFIX``; anywhere else at
    its own path."""
    real = _real(str(path))
    for host, guest in guest_view():
        if host != "/" and (real == host or real.startswith(host + "/")):
            rel = real[len(host):]
            if guest == GUEST_CHECKOUT and (not rel or rel[1:].split("/")[0] in
                                            checkout_entries()):
                guest = GUEST_SRC
            return guest + rel
    return real


def split_option(arg: str) -> Tuple[str, str]:
    """``--opt=value`` -> (``--opt=``, ``value``); any other argument -> ("", arg)."""
    if arg.startswith("--") and "=" in arg:
        head, value = arg.split("=", 1)
        return head + "=", value
    return "", arg


def guest_argv(argv: List[str]) -> List[str]:
    """ARGV with each absolute path (also ``--opt=/path``) under the checkout or Python's
    prefix as the guest sees it."""
    out = []
    for arg in argv:
        head, value = split_option(arg)
        out.append(head + guest_path(value) if value.startswith("/") else arg)
    return out


def guest_python() -> str:
    """This interpreter as a guest starts it (its venv, if any, at the fixed view)."""
    return guest_path(sys.executable)


def runs_base() -> Path:
    base = cache_dir() / "uml" / "runs"
    base.mkdir(parents=True, exist_ok=True)
    return base


def host_cpus() -> List[int]:
    return sorted(os.sched_getaffinity(0))


class CPUSlot:
    """A host CPU for one guest: one flock file per CPU in the cache, so guests of every harness
    process on this host share the CPUs one each (a guest that shares a CPU is slower and an
    unpinned one ten times slower, docs/engine.md). Released when the process dies."""

    def __init__(self) -> None:
        self.file: Optional[IO[str]] = None
        self.cpu: Optional[int] = None
        self.cancelled = threading.Event()

    def acquire(self, out: Optional[TextIO] = None) -> int:
        directory = cache_dir() / "uml" / "cpus"
        directory.mkdir(parents=True, exist_ok=True)
        told = False
        while not self.cancelled.is_set():
            for cpu in host_cpus():
                f = open(directory / f"cpu-{cpu}.lock", "w")
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    f.close()
                    continue
                self.file, self.cpu = f, cpu
                return cpu
            if not told and out is not None:
                print(f"harness: waiting for a free host CPU ({len(host_cpus())} guests at a "
                      "time on this host)", file=out, flush=True)
                told = True
            self.cancelled.wait(0.5)
        raise HarnessError("the guest was stopped while it waited for a host CPU")

    def release(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file, self.cpu = None, None


@dataclass
class UMLConfig:
    seed: int = 0
    #: the one host folder the guest may write, mounted at its own path (None: none)
    output: Optional[Path] = None
    #: the job's standard input and output are this terminal (``harness cli``)
    console: bool = False
    #: the kernel binary: None for the stock one, else a variant (``fail-avg-3.12``)
    variant: Optional[str] = None
    memory_mb: int = 1024
    #: "virtual" (time travel, the default) or "host" (the host's wall clock: an interactive
    #: prompt, where a person's typing must not let the guest's clock race ahead)
    clock: str = "virtual"
    watchdog_s: float = field(default_factory=lambda: float(
        os.environ.get(WATCHDOG_ENV, DEFAULT_WATCHDOG_S)))


class GuestHung(HarnessError):
    """The guest's clock stopped advancing: something in it spins."""


class UMLGuest:
    """One boot of the kernel, for one script. ``run`` boots, runs, waits and cleans up."""

    def __init__(self, kernel: UMLKernel, config: UMLConfig):
        if config.variant and config.variant not in kernel.variants():
            raise HarnessError(f"kernel variant {config.variant!r} is not built: allowed "
                               f"{', '.join(kernel.variants()) or 'none'}")
        self.kernel = kernel
        self.config = config
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.rundir: Optional[Path] = None
        self.slot = CPUSlot()
        self.boot_seconds: Optional[float] = None
        self.cpu: Optional[int] = None
        self._stopped = threading.Event()
        #: the largest resident memory of the guest's host processes seen while it ran (MB)
        self.peak_rss_mb = 0.0
        #: The longest the guest's clock stood still, in wall seconds (what the watchdog
        #: limit must exceed).
        self.longest_stall_s = 0.0

    # -- the command line: identical for every run but the seed (docs/engine.md) -----------
    def command_line(self, init: Path) -> List[str]:
        c = self.config
        clock = (["time-travel=inf-cpu", f"time-travel-start={TIME_TRAVEL_START_NS}"]
                 if c.clock == "virtual" else [])
        words = [str(self.kernel.binary(c.variant)), f"mem={c.memory_mb}M", *clock,
                 "root=/dev/root", "rootfstype=hostfs", "rootflags=/", "ro",
                 f"init={init}", "mac80211_hwsim.radios=0", "con=null",
                 # the console (the guest's /dev/tty0): this terminal, or the log
                 "con0=fd:0,fd:1" if c.console else "con0=null,fd:2", "quiet", "loglevel=3",
                 *self.kernel.boot_args,
                 f"HX_RUN={self.rundir}", f"HX_OUT={c.output or '-'}", f"HX_SEED={c.seed}"]
        return words

    def shown(self, cwd: str) -> List[Tuple[str, str]]:
        """The host folders the job reads besides ``/``, read-only, as (host, guest) pairs:
        the checkout, Python's prefix and the working folder, at the fixed view only (a
        checkout under /tmp also shown at its own path, inside the guest's scratch /tmp,
        gave other records; arguments naming it are mapped: ``guest_argv``). Always these
        three mounts, so the programs init starts, each drawing from the guest's random
        state, are the same wherever the folders lie."""
        return guest_view() + [(os.path.realpath(cwd), GUEST_CWD)]

    def guest_cwd(self, cwd: str) -> str:
        """The working folder in the guest: the writeable output at its own path (first, so
        that ``harness cli`` started in the checkout writes its pictures there, not to the
        checkout's read-only view), else the fixed view under the checkout or prefix, else
        the read-only ``GUEST_CWD``."""
        cwd = os.path.realpath(cwd)
        output = self.config.output
        if output is not None:
            out = os.path.realpath(output)
            if cwd == out or cwd.startswith(out.rstrip("/") + "/"):
                return cwd
        mapped = guest_path(cwd)
        return mapped if mapped != cwd else GUEST_CWD

    def _prepare(self, script: str, env: Dict[str, str], cwd: str,
                 stdin: Optional[bytes]) -> Path:
        rundir = Path(tempfile.mkdtemp(prefix=RUNDIR_PREFIX, dir=runs_base()))
        rundir.chmod(0o755)
        cleanup.claim(rundir)
        (rundir / "job.sh").write_text(script + "\n")
        lines = [f"{k}={shlex.quote(v)}" for k, v in sorted(env.items())]
        lines += [f"HX_CWD={shlex.quote(self.guest_cwd(cwd))}",
                  f"HX_CONSOLE={1 if self.config.console else 0}"]
        (rundir / "env").write_text("\n".join(lines) + "\n")
        (rundir / "show").write_text("".join(f"{host}\n{guest}\n"
                                             for host, guest in self.shown(cwd)))
        (rundir / "src").write_text("".join(f"{name}\n" for name in checkout_entries()))
        if stdin is not None:
            (rundir / "stdin").write_bytes(stdin)
        for name in ("modules.builtin", "modules.builtin.modinfo"):
            src = self.kernel.directory / name
            if src.exists():
                shutil.copy(src, rundir / name)
        for name in ("out", "err"):
            (rundir / name).touch()
        if self.config.output is not None:
            self.config.output.mkdir(parents=True, exist_ok=True)
        return rundir

    def run(self, script: str, *, env: Dict[str, str], cwd: str = "/",
            on_out: Callable[[str], object] = lambda s: None,
            on_err: Callable[[str], object] = lambda s: None,
            stdin: Optional[bytes] = None, out: TextIO = sys.stderr) -> int:
        """Boot, run ``script`` with ``sh`` in ``cwd``, stream its output, power off; its exit
        code. ``GuestHung`` when the watchdog stopped it; HarnessError when it did not boot."""
        self.rundir = self._prepare(script, env, cwd, stdin)
        try:
            # a guest on the host's clock (a prompt) measures nothing by the wall: it shares a
            # CPU rather than wait for one while a sweep holds them all
            self.cpu = self.slot.acquire(out) if self.config.clock == "virtual" else host_cpus()[-1]
            init = project_file("vm", "uml", "init.sh")
            argv = ["taskset", "-c", str(self.cpu)] + self.command_line(init)
            t0 = time.monotonic()
            # on a terminal the guest's console (con0 = fd 0 and fd 1) is this terminal; else
            # it writes only the kernel's messages, to the log (con0 = fd 2)
            stdio = None if self.config.console else subprocess.DEVNULL
            log = open(self.rundir / "console.log", "wb")
            self.proc = subprocess.Popen(argv, stdin=stdio, stdout=stdio,
                                         stderr=log, preexec_fn=cleanup.die_with_parent,
                                         start_new_session=not self.config.console)
            self._watch()
            return self._follow(t0, on_out, on_err)
        finally:
            self.stop()

    def _watch(self) -> None:
        """A watcher that kills the guest's whole process group when the harness dies, even by
        SIGKILL: PDEATHSIG reaches the UML kernel only, and its processes (the guest's
        programs, which it traces, and its helper threads) would outlive it."""
        assert self.proc is not None
        pid = self.proc.pid
        target = f"-{pid}" if not self.config.console else str(pid)
        # as long as any process of the guest lives (the kernel itself dies first, by PDEATHSIG)
        # (on a terminal the kernel shares the harness's process group: its processes are
        # found by the run folder on their command line instead)
        # ("[/]": the pattern does not match the watcher's own command line)
        folder = str(self.rundir)
        mark = f'"HX_RUN=[{folder[0]}]{folder[1:]} "'
        script = (f"trap '/bin/kill -KILL -- {target} 2>/dev/null; pkill -KILL -f {mark}; "
                  "exit 0' TERM; "
                  f"while /bin/kill -0 -- {target} 2>/dev/null; do sleep 0.2; done")
        self._watcher = subprocess.Popen(["sh", "-c", script], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         preexec_fn=_term_with_parent)

    def _follow(self, t0: float, on_out: Callable[[str], object],
                on_err: Callable[[str], object]) -> int:
        assert self.proc is not None and self.rundir is not None
        readers = [(open(self.rundir / "out", "rb"), on_out), (open(self.rundir / "err", "rb"), on_err)]
        last_beat, last_change = "", time.monotonic()
        next_rss = 0.0
        try:
            while True:
                if time.monotonic() >= next_rss:  # the guest's host memory, sampled
                    next_rss = time.monotonic() + 0.5
                    self.peak_rss_mb = max(self.peak_rss_mb, _tree_rss_mb(self.proc.pid))
                for f, sink in readers:
                    data = f.read()
                    if data:
                        sink(data.decode(errors="replace"))
                done = self.proc.poll() is not None
                status = self._status()
                if status is not None and (done or status.startswith("HX-EXIT")):
                    if not done:
                        try:
                            self.proc.wait(10)
                        except subprocess.TimeoutExpired:
                            pass
                    for f, sink in readers:
                        data = f.read()
                        if data:
                            sink(data.decode(errors="replace"))
                    return self._exit_code(status)
                if done:
                    raise HarnessError(f"the UML guest stopped without an exit status "
                                       f"(exit {self.proc.returncode}): "
                                       f"{self._console_tail()}")
                beat = self._read("beat") or ""
                now = time.monotonic()
                if beat != last_beat:
                    if last_beat == "" and self.boot_seconds is None:
                        self.boot_seconds = now - t0
                    elif last_beat:
                        self.longest_stall_s = max(self.longest_stall_s, now - last_change)
                    last_beat, last_change = beat, now
                elif now - last_change > self.config.watchdog_s:
                    raise GuestHung(self._hung_message(beat))
                if self._stopped.is_set():
                    raise HarnessError("the guest was stopped")
                time.sleep(0.05)
        finally:
            for f, _ in readers:
                f.close()

    def _read(self, name: str) -> Optional[str]:
        assert self.rundir is not None
        try:
            return (self.rundir / name).read_text()
        except OSError:
            return None

    def _status(self) -> Optional[str]:
        text = self._read("status")
        return text.strip() if text else None

    def _exit_code(self, status: str) -> int:
        if status.startswith("HX-EXIT "):
            return int(status.split()[1])
        raise HarnessError(f"the UML guest could not start its job: {status}")

    def _console_tail(self) -> str:
        text = (self._read("console.log") or "").strip().splitlines()
        return " | ".join(text[-6:]) or "no console output"

    def _hung_message(self, beat: str) -> str:
        """Which of the guest's processes were on the CPU: the host sees them as threads and
        children of the UML process (their names are the guest programs')."""
        running = []
        assert self.proc is not None
        for pid in [self.proc.pid] + _descendants(self.proc.pid):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            name = stat[stat.find("(") + 1:stat.rfind(")")]
            state = stat.rsplit(")", 1)[1].split()[0]
            if state == "R":
                running.append(f"{name} (host pid {pid})")
        who = ", ".join(running) or "none on the CPU"
        return (f"the guest's clock stopped at {beat or '0'} s for "
                f"{self.config.watchdog_s:.0f} wall s: something in it spins or computes "
                f"without a pause (running: {who}); "
                f"killed ({WATCHDOG_ENV} sets the limit)")

    def stop(self) -> None:
        """Kill the guest (if it still runs) and remove its run folder; idempotent."""
        self._stopped.set()
        self.slot.cancelled.set()
        proc = self.proc
        tree = [proc.pid] + _descendants(proc.pid) if proc is not None else []
        if proc is not None and proc.poll() is None:
            for pid in tree:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
        if proc is not None and not self.config.console:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # what the guest's kernel left running
        # the guest's processes are not our children: wait until they are gone (or zombies),
        # so that nothing of this guest is left when stop returns (on a busy host it takes a while)
        deadline = time.monotonic() + 10
        while any(_running(pid) for pid in tree) and time.monotonic() < deadline:
            time.sleep(0.05)
        watcher = getattr(self, "_watcher", None)
        if watcher is not None and watcher.poll() is None:
            watcher.kill()
            watcher.wait()
        self.slot.release()
        if self.rundir is not None and os.environ.get(KEEP_ENV) != "1":
            shutil.rmtree(self.rundir, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _term_with_parent() -> None:
    """``preexec_fn``: SIGTERM when the thread that started the process dies."""
    import ctypes
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and its descendants (MB; shared pages counted once per
    process, so an upper bound)."""
    total = 0
    for p in [pid] + _descendants(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (OSError, ValueError):
            pass
    return total / 1024


def _descendants(pid: int) -> List[int]:
    children: Dict[int, List[int]] = {}
    for p in cleanup.pids():
        parent = cleanup.parent_pid(p)
        if parent is not None:
            children.setdefault(parent, []).append(p)
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


# -- clean-up after a killed harness (registered with harness.kernel.cleanup) ---------------
def _guest_processes(base: Path) -> List[int]:
    marker = f"HX_RUN={base}/{RUNDIR_PREFIX}"
    return [pid for pid in cleanup.pids() if marker in cleanup.cmdline(pid)]


def clean_guests(tag: Optional[str], report: cleanup.CleanReport,
                 base: Optional[Path] = None) -> None:
    """UML guests whose run folder's owner is gone, and their folders."""
    if tag is not None:
        return
    base = runs_base() if base is None else base
    stale = [pid for pid in _guest_processes(base)
             if cleanup.owner_alive(Path(_rundir_of(pid))) is not True]
    victims = stale + [c for pid in stale for c in _descendants(pid)]
    for pid in stale:
        report.add("process", f"{pid} UML guest {_rundir_of(pid)}")
    cleanup.kill_all(victims)
    for path in cleanup.abandoned_dirs(base, RUNDIR_PREFIX + "*", unclaimed=True):
        cleanup.remove_abandoned(path, "UML run folder", report)


def _rundir_of(pid: int) -> str:
    for word in cleanup.cmdline(pid).split():
        if word.startswith("HX_RUN="):
            return word[len("HX_RUN="):]
    return "?"


def guests_left(tag: Optional[str], base: Optional[Path] = None) -> List[str]:
    if tag is not None:
        return []
    base = runs_base() if base is None else base
    left = [f"UML guest {pid}" for pid in _guest_processes(base)
            if cleanup.owner_alive(Path(_rundir_of(pid))) is not True]
    return left + [f"UML run folder {p}"
                   for p in cleanup.abandoned_dirs(base, RUNDIR_PREFIX + "*", unclaimed=True)]


cleanup.add_cleanup_callback("UML guests", clean_guests, stage="processes",
                             leftovers=guests_left)
