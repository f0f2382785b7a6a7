"""Network namespaces: create, run commands inside, track and kill processes, delete.

A ``Node`` is one namespace. Commands run through ``ip netns exec`` with ``subprocess``
(timeouts, exit codes), never through a long-lived shell. Every process started here gets
``HARNESS_RUN=<tag>`` in its environment so ``harness clean`` can recognise it later: this
module registers the clean-up of marked processes and ``hx-*`` namespaces (``harness.kernel.cleanup``).
Under TCG every process costs ~60 ms, so batch steps with ``Node.script``, and do in Python
what needs no process (namespace lookups, the pids of a namespace).
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shlex
import signal
import socket
import struct
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from harness.errors import CommandTimeout, HarnessError
from harness.kernel import cleanup, naming
from harness.kernel.naming import RUN_ENV

Args = Union[str, Sequence[str]]

#: Default timeout of one command (guest seconds). It catches hangs, so it can be generous:
#: in virtual time (QEMU icount, sleep=off) the guest's clock jumps ahead while it waits for
#: the disk, and a command read from disk for the first time after boot (``modprobe``,
#: ``ovsdb-tool``, ``hostapd``) has been measured to take over 30 s of guest time.
CMD_TIMEOUT = 120.0
#: Most per-node steps run at once (``each``): process start-up is CPU work, so a few
#: more than the CPUs keeps them busy while some processes wait on the kernel.
PARALLEL = max(2, 2 * (os.cpu_count() or 1))

T = TypeVar("T")


def each(fn: Callable[[T], object], items: Iterable[T]) -> None:
    """``fn(item)`` for every item, concurrently (per-node steps are independent).

    Every call finishes before this returns, also on error or Ctrl-C, so a teardown that
    follows never races a step still running; then the first error (in item order) is raised.
    """
    items = list(items)
    if len(items) <= 1 or _pools_shut_down():
        for item in items:  # at interpreter exit (a Network stopped by atexit) no pool runs
            fn(item)
        return
    pool = ThreadPoolExecutor(max_workers=min(PARALLEL, len(items)))
    interrupted: Optional[BaseException] = None
    try:
        futures = [pool.submit(fn, item) for item in items]
    finally:
        while True:  # a Ctrl-C while waiting: keep waiting (steps are bounded by timeouts)
            try:
                pool.shutdown(wait=True)
                break
            except KeyboardInterrupt as err:
                interrupted = interrupted or err
    if interrupted is not None:
        raise interrupted
    for future in futures:
        future.result()


def _pools_shut_down() -> bool:
    """True once the interpreter is exiting: thread pools then refuse new work ("cannot
    schedule new futures after interpreter shutdown"), also in atexit callbacks."""
    import concurrent.futures.thread as pool_module
    return bool(getattr(pool_module, "_shutdown", False)) or sys.is_finalizing()


def run(args: Sequence[str], *, check: bool = True, timeout: float = CMD_TIMEOUT,
        input: Optional[str] = None, env: Optional[Mapping[str, str]] = None
        ) -> subprocess.CompletedProcess:
    """Run one command (root namespace), capture text output; raise HarnessError on failure."""
    try:
        proc = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout,
                              input=input, env=dict(env) if env is not None else None)
    except FileNotFoundError as err:
        raise HarnessError(f"command not found: {args[0]}",
                           hint="run 'harness doctor' to see what is missing") from err
    except subprocess.TimeoutExpired as err:
        raise CommandTimeout(f"command timed out after {timeout:g} s: {shlex.join(args)}") from err
    if check and proc.returncode != 0:
        raise HarnessError(f"command failed (exit {proc.returncode}): {shlex.join(args)}\n"
                           f"  {proc.stderr.strip() or proc.stdout.strip()}")
    return proc


#: Where ``ip netns add`` keeps its bind mounts (one file per named namespace).
NETNS_DIR = "/run/netns"


_CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, _CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise HarnessError(f"setns failed: {os.strerror(e)}")


@contextlib.contextmanager
def entered(ns: str) -> Iterator[None]:
    """Run the block in namespace ``ns``, this thread only (sockets opened and /proc/sys/net
    paths looked up inside it belong to ``ns``); the thread's own namespace comes back after."""
    if not netns_exists(ns):
        raise HarnessError(f"namespace {ns} does not exist")
    with contextlib.ExitStack() as stack:
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        stack.callback(os.close, own)
        target = os.open(os.path.join(NETNS_DIR, ns), os.O_RDONLY)
        stack.callback(os.close, target)
        _setns(target)
        stack.callback(_setns, own)
        yield


def socket_in(ns: Optional[str], family: int, kind: int, proto: int) -> socket.socket:
    """A socket of namespace ``ns`` (None: this thread's own); it stays in ``ns`` for life."""
    with entered(ns) if ns is not None else contextlib.nullcontext():
        return socket.socket(family, kind, proto)


#: Port ids this process binds netlink sockets in other namespaces to: above every process id
#: (pid_max is at most 2^22) and below the ids the kernel's autobind hands out when a
#: process's own id is taken (negative from -4096, i.e. near 2^32).
_PORTID_BASE = 0x40000000


def portid_candidates(pid: int, n: int = 64) -> List[int]:
    """The explicit netlink port ids ``netlink_socket_in`` tries, in order (never ``pid``)."""
    first = _PORTID_BASE + (pid % (1 << 22)) * 64
    return [first + k for k in range(n)]


def netlink_socket_in(ns: Optional[str], proto: int) -> socket.socket:
    """A bound netlink socket of namespace ``ns`` (None: this thread's own, autobound).

    Why not autobind inside a node's namespace: mac80211_hwsim deletes the radios a process
    created with DESTROY_RADIO_ON_CLOSE when *any* netlink socket with the creating socket's
    port id is released, whatever its protocol (and, before a 2025 fix, whatever its
    namespace), and autobind gives a process's first socket of each protocol in each namespace
    the process id, the port id of the root socket that created the radios. A sock_diag
    socket closed in a node (the TCP sampler) deleted every radio of the run that way
    (docs/kernel.md, "Netlink port ids"). So sockets in other namespaces take an explicit
    port id that autobind never gives."""
    sock = socket_in(ns, socket.AF_NETLINK, socket.SOCK_RAW, proto)
    if ns is None:
        sock.bind((0, 0))
        return sock
    for portid in portid_candidates(os.getpid()):
        try:
            sock.bind((portid, 0))
            return sock
        except OSError as err:
            if err.errno != errno.EADDRINUSE:
                sock.close()
                raise
    sock.close()
    raise HarnessError(f"no free netlink port id for a socket in namespace {ns} "
                       f"({len(portid_candidates(0))} tried)")


#: struct nlmsghdr: length, type, flags, sequence number, port id.
NLMSGHDR = struct.Struct("=IHHII")


def split_messages(data: bytes) -> List[Tuple[int, int, bytes]]:
    """Split a netlink datagram into (type, seq, raw message) triples."""
    out = []
    off = 0
    while off + NLMSGHDR.size <= len(data):
        length, mtype, _flags, seq, _pid = NLMSGHDR.unpack_from(data, off)
        if length < NLMSGHDR.size:
            break
        out.append((mtype, seq, data[off:off + length]))
        off += (length + 3) & ~3
    return out


def ack_code(raw: bytes) -> int:
    """The signed error field of an NLMSG_ERROR (0 = ack, <0 = -errno, >0 = hwsim radio id)."""
    return struct.unpack_from("=i", raw, NLMSGHDR.size)[0]


def list_netns() -> List[str]:
    """Names of all named namespaces (``ip netns list``), whatever created them."""
    out = run(["ip", "netns", "list"], check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def netns_exists(ns: str) -> bool:
    return os.path.exists(os.path.join(NETNS_DIR, ns))


def netns_pids(ns: str) -> List[int]:
    """Pids whose network namespace is ``ns`` (what ``ip netns pids`` prints, without a process)."""
    try:
        target = os.stat(os.path.join(NETNS_DIR, ns))
    except OSError:
        return []
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            st = os.stat(f"/proc/{entry}/ns/net")
        except OSError:
            continue  # gone, or a kernel thread we may not inspect
        if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
            pids.append(int(entry))
    return pids


def kill_netns_pids(ns: str, timeout: float = 3.0) -> List[int]:
    """SIGTERM then SIGKILL every process in the namespace; returns the pids found."""
    pids = netns_pids(ns)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and netns_pids(ns):
            time.sleep(0.05)
        if not netns_pids(ns):
            break
    return pids


def delete_netns(ns: str) -> None:
    """Delete a namespace (its veths go with it; phys return to the root namespace)."""
    run(["ip", "netns", "del", ns], check=False)


class Node:
    """One network namespace and the processes the harness started in it."""

    def __init__(self, name: str, netns: str, run_tag: str):
        self.name = name
        self.netns = netns
        self.run_tag = run_tag
        self.procs: List[subprocess.Popen] = []
        #: Interface names inside the namespace, in creation order (filled by Network).
        self.intfs: List[str] = []
        #: IPv4 addresses with prefix, e.g. ``10.0.0.1/24`` (filled by Network).
        self.ips: List[str] = []
        #: True once ``create`` made the namespace (only then does ``destroy`` belong to us).
        self.created = False

    def __repr__(self) -> str:
        return f"<Node {self.name} netns={self.netns}>"

    @property
    def ip(self) -> Optional[str]:
        """First IPv4 address without prefix length (what tests and traffic use)."""
        return self.ips[0].split("/")[0] if self.ips else None

    # -- lifecycle -----------------------------------------------------------------
    def create(self) -> None:
        if netns_exists(self.netns):
            raise HarnessError(f"namespace {self.netns} already exists",
                               hint="a run with the same tag is alive, or run 'harness clean'")
        run(["ip", "netns", "add", self.netns])
        self.created = True
        run(["ip", "-n", self.netns, "link", "set", "lo", "up"])

    def destroy(self) -> None:
        """Kill tracked processes, then everything else in the namespace, then delete it."""
        self.stop_processes()
        kill_netns_pids(self.netns)
        delete_netns(self.netns)

    # -- commands ------------------------------------------------------------------
    def _argv(self, args: Args) -> List[str]:
        inner = ["sh", "-c", args] if isinstance(args, str) else list(args)
        return ["ip", "netns", "exec", self.netns, *inner]

    def _env(self) -> dict:
        """The environment of every process in the node: ours plus the run tag (``ip netns
        exec`` passes it on), so ``harness clean`` can recognise the process later."""
        return dict(os.environ, **{RUN_ENV: self.run_tag})

    def cmd(self, args: Args, *, check: bool = True, timeout: float = CMD_TIMEOUT,
            input: Optional[str] = None) -> subprocess.CompletedProcess:
        """Run a command in the namespace and wait; a string runs through ``sh -c``."""
        try:
            return run(self._argv(args), check=check, timeout=timeout, input=input,
                       env=self._env())
        except HarnessError as err:  # the same kind of error, naming the node
            raise type(err)(f"[{self.name}] {err.args[0]}", hint=err.hint) from None

    def script(self, lines: Iterable[str], *, check: bool = True,
               timeout: float = CMD_TIMEOUT) -> subprocess.CompletedProcess:
        """Run several shell lines in one process (``set -e``): one fork instead of many."""
        body = "set -e\n" + "\n".join(lines) + "\n"
        return self.cmd(["sh", "-c", body], check=check, timeout=timeout)

    def popen(self, args: Args, *, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
              text: bool = True) -> subprocess.Popen:
        """Start a background process in the namespace; it is killed at ``stop_processes``."""
        proc = subprocess.Popen(self._argv(args), stdout=stdout, stderr=stderr, text=text,
                                start_new_session=True, env=self._env())
        self.procs.append(proc)
        return proc

    def stop_processes(self, timeout: float = 2.0) -> None:
        """SIGTERM each tracked process group, SIGKILL what is left after ``timeout``."""
        for proc in self.procs:
            if proc.poll() is None:
                _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in self.procs:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(5)
        self.procs.clear()

    # -- sysctls -------------------------------------------------------------------
    def set_sysctls(self, values: Mapping[str, Union[str, int]]) -> None:
        """Write ``net.*`` sysctls of this namespace, from this process (no fork): /proc/sys/net
        shows the namespace of the thread that looks, and ``entered`` moves this thread."""
        for key in values:
            if not key.startswith("net."):
                raise HarnessError(f"sysctl {key!r} is not per-namespace: only net.* keys allowed")
        with entered(self.netns):
            for key, value in values.items():
                try:
                    with open(_sysctl_path(key), "w") as fh:
                        fh.write(f"{value}\n")
                except OSError as err:
                    raise HarnessError(f"[{self.name}] sysctl {key} = {value!r} failed: "
                                       f"{err.strerror}") from None

    def get_sysctl(self, key: str) -> str:
        with entered(self.netns):
            try:
                with open(_sysctl_path(key)) as fh:
                    return fh.read().strip()
            except OSError as err:
                raise HarnessError(f"[{self.name}] reading sysctl {key} failed: "
                                   f"{err.strerror}") from None


def _sysctl_path(key: str) -> str:
    return "/proc/sys/" + key.replace(".", "/")


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


# -- clean-up of killed runs (registered with harness.kernel.cleanup) -----------------------
_MARKER = (RUN_ENV + "=").encode()


def marked_processes(tag: Optional[str] = None) -> List[int]:
    """Pids whose environment has ``HARNESS_RUN=`` (of ``tag`` if given), except ourselves."""
    mine = cleanup.ancestors()
    want = _MARKER + (tag.encode() if tag else b"")
    out = []
    for pid in cleanup.pids():
        if pid in mine:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        if any(var.startswith(want) for var in env.split(b"\0")):
            out.append(pid)
    return out


def harness_namespaces(tag: Optional[str] = None) -> List[str]:
    """Namespaces named like a run's (``hx-<tag>-<node>``), of ``tag`` if given."""
    return [ns for ns in list_netns()
            if (parsed := naming.parse_netns(ns)) and (tag is None or parsed.tag == tag)]


def _kill_processes(tag: Optional[str], report: cleanup.CleanReport) -> None:
    """Every marked process, then whatever else runs inside a run's namespace."""
    pids = marked_processes(tag)
    for pid in pids:
        report.add("process", f"{pid} {cleanup.cmdline(pid)[:80]}")
    cleanup.kill_all(pids)
    for ns in harness_namespaces(tag):
        for pid in kill_netns_pids(ns):
            report.add("process", f"{pid} (in {ns})")


def _delete_namespaces(tag: Optional[str], report: cleanup.CleanReport) -> None:
    for ns in harness_namespaces(tag):
        delete_netns(ns)
        report.add("namespace", ns)


def _namespaces_left(tag: Optional[str]) -> List[str]:
    left = [f"netns {ns}" for ns in harness_namespaces(tag)]
    return left + [f"process {pid} {cleanup.cmdline(pid)[:60]}" for pid in marked_processes(tag)]


cleanup.add_cleanup_callback("processes", _kill_processes, stage="processes")
cleanup.add_cleanup_callback("namespaces", _delete_namespaces, stage="namespaces",
                             leftovers=_namespaces_left)
