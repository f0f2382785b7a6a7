"""Boot the guest under QEMU and run commands in it through the agent.

One ``VM`` is one QEMU process. It boots the cached image with ``snapshot=on`` (every boot
starts clean), shares directories over 9p, and talks JSON lines to ``vm/guest/agent.py``
over a virtio-serial port. QEMU gets PR_SET_PDEATHSIG, so it dies with the harness even on
SIGKILL: no stray qemu after any exit. Its run folder (``hx-vm-*`` in the temporary directory)
is claimed by the harness process; a killed harness leaves it behind, and this module
registers its clean-up (``harness.kernel.cleanup``): folders whose owner is gone, and any
QEMU still serving one.
"""
from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, TextIO

from harness.errors import HarnessError
from harness.kernel import cleanup
from harness.paths import cache_dir
from harness.vm.image import Image

AGENT_PORT = "org.harness.agent"
#: Run folders ``hx-vm-*`` in the temporary directory: agent socket, console log.
RUNDIR_PREFIX = "hx-vm-"
#: Host seconds a boot may take before it counts as hung. Alone, TCG boots in 10-15 s; on a
#: host whose cores are all busy (other VMs, a CPU load) QEMU gets a fraction of a core and
#: the same boot has taken minutes (measured: eight VMs on two cores took over 120 s):
#: ``HARNESS_VM_BOOT_TIMEOUT`` sets it.
BOOT_TIMEOUT_S = float(os.environ.get("HARNESS_VM_BOOT_TIMEOUT", "600"))


#: Guest clocks: ``virtual`` (QEMU's instruction counter: guest time advances with guest
#: instructions and jumps over idle time, so results do not depend on the host's load) and
#: ``realtime`` (the guest runs on the host's wall clock). docs/vm.md measures both.
CLOCKS = ("virtual", "realtime")
#: ``-icount shift``: 2^shift ns of guest time per instruction. 0 is the fastest virtual CPU
#: QEMU offers (1 instruction/ns); a slower one only adds delivery lag (docs/vm.md).
ICOUNT_SHIFT = 0


def clock_mode() -> str:
    """The guest clock asked for (``HARNESS_VM_CLOCK``, default ``virtual``)."""
    value = os.environ.get("HARNESS_VM_CLOCK", "virtual")
    if value not in CLOCKS:
        raise HarnessError(f"HARNESS_VM_CLOCK={value!r}: allowed values are {', '.join(CLOCKS)}")
    return value


def vm_slots(clock: Optional[str] = None) -> int:
    """How many harness VMs may run at once on this host (``HARNESS_VM_SLOTS``).

    In virtual time a guest's results do not depend on how much host CPU it gets, and it
    runs on one host thread: by default one VM per host core. On the wall clock the medium
    runs in real time, and a CPU-starved guest measures the CPU, not the air: one VM per two
    host cores."""
    value = os.environ.get("HARNESS_VM_SLOTS", "")
    if value:
        if not value.isdigit() or int(value) < 1:
            raise HarnessError(f"HARNESS_VM_SLOTS={value!r}: allowed values are whole numbers >= 1")
        return int(value)
    cores = os.cpu_count() or 2
    return cores if (clock or clock_mode()) == "virtual" else max(1, cores // 2)


class SlotLock:
    """A host-wide slot for one VM (flock files in the cache; released when the process dies)."""

    def __init__(self, clock: Optional[str] = None) -> None:
        self.file: Optional[IO[str]] = None
        self.clock = clock
        #: Set by ``cancel()`` (the VM was stopped from another thread, e.g. a sweep's Ctrl-C):
        #: a wait for a slot ends instead of blocking that thread, and the sweep's exit, forever.
        self.cancelled = threading.Event()

    def acquire(self, out: Optional[TextIO] = None) -> None:
        directory = cache_dir() / "vm-slots"
        directory.mkdir(parents=True, exist_ok=True)
        told = False
        while True:
            for i in range(vm_slots(self.clock)):
                if self.cancelled.is_set():
                    raise HarnessError("the VM was stopped while it waited for a slot")
                f = open(directory / f"slot-{i}.lock", "w")
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    self.file = f
                    if self.cancelled.is_set():  # stopped while this lock was being taken
                        self.release()
                        raise HarnessError("the VM was stopped while it waited for a slot")
                    return
                except BlockingIOError:
                    f.close()
            if not told and out is not None:
                print(f"harness: waiting for a VM slot ({vm_slots(self.clock)} at a time on this host; "
                      f"HARNESS_VM_SLOTS changes it)", file=out, flush=True)
                told = True
            self.cancelled.wait(1.0)

    def cancel(self) -> None:
        self.cancelled.set()

    def release(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
KVM_PROBE_TIMEOUT_S = 25.0
#: The console's escape character (``-echr``): Ctrl-] (0x1d), as telnet's.
CONSOLE_ESCAPE = 0x1D


@dataclass
class Share:
    """A host directory the guest mounts over 9p.

    ``snapshot``: the guest copies the share's code directories into memory at boot and binds
    them over their place (vm/guest/rc.sh); its data directories stay shared. For the
    checkout: in virtual time a guest that waits on the host for a file has its clock jump to
    its next timer deadline (docs/vm.md), and reading the harness's modules over 9p each time
    Python started made an import take minutes of guest time under a loaded host."""
    tag: str
    host_path: Path
    guest_path: str
    snapshot: bool = False


@dataclass
class VMConfig:
    memory_mb: int = int(os.environ.get("HARNESS_VM_MEMORY", "2048"))
    cpus: Optional[int] = None  # HARNESS_VM_CPUS; default 1 in virtual time, else 2
    accel: str = "tcg"  # "tcg" or "kvm"
    clock: str = field(default_factory=clock_mode)
    #: QEMU's ``-seed``: its own pseudo-random numbers (and, with no host RNG device, the
    #: guest's entropy sources that QEMU emulates) repeat from boot to boot.
    seed: Optional[int] = None
    shares: List[Share] = field(default_factory=list)
    interactive: bool = False  # serial console on stdio (harness vm shell)
    guest_cwd: str = "/root"   # where the interactive shell starts
    #: The serial console on this terminal while commands still go through the agent: a
    #: command the agent starts on /dev/ttyS0 talks to the user (harness cli in the guest).
    console: bool = False


class VM:
    def __init__(self, image: Image, config: VMConfig):
        self.image = image
        self.config = config
        self.rundir = Path(tempfile.mkdtemp(prefix=RUNDIR_PREFIX))
        cleanup.claim(self.rundir)
        self.sock_path = self.rundir / "agent.sock"
        self.console_log = self.rundir / "console.log"
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.sock: Optional[socket.socket] = None
        self._next_id = 0
        self._lock = threading.Lock()
        self._handlers: Dict[int, Callable[[Dict[str, Any]], None]] = {}
        self._reader: Optional[threading.Thread] = None
        self.boot_seconds: Optional[float] = None
        self.slot = SlotLock(config.clock)

    # -- lifecycle -------------------------------------------------------------------
    @property
    def virtual_time(self) -> bool:
        """Virtual time runs only under TCG (KVM runs guest code on the host CPU directly)."""
        return self.config.clock == "virtual" and self.config.accel != "kvm"

    @property
    def cpus(self) -> int:
        cfg = self.config
        wanted = cfg.cpus if cfg.cpus is not None else int(os.environ.get("HARNESS_VM_CPUS", "0") or 0)
        if self.virtual_time:
            if wanted > 1:
                raise HarnessError(f"HARNESS_VM_CPUS={wanted}: virtual time runs one vCPU "
                                   "(allowed: 1); use HARNESS_VM_CLOCK=realtime for more")
            return 1
        return wanted or 2

    def command_line(self) -> List[str]:
        cfg = self.config
        virtual = self.virtual_time
        cpus = self.cpus
        if cfg.accel == "kvm":
            accel = "kvm"
        else:
            # icount needs single-threaded TCG; with several vCPUs they would share one
            # counter round-robin, and -smp 2 with sleep=off hangs at SMP bring-up.
            accel = "tcg,thread=single" if virtual else "tcg,thread=multi"
        # tsc=reliable: under TCG the guest's TSC is the host's (invariant, synchronised
        # across cores), but the kernel's watchdog distrusts it and falls back to the HPET,
        # an emulated device at ~1.4 us a read. Measured: 2.2 M cross-vCPU reads never went
        # backwards, calibration within 2 ppm of the host, ~10 % more frames/s (docs/vm.md).
        # preempt=full: the kernel code a process runs (iperf3's sendmsg) can be preempted
        # as soon as mediumd's timer fires (mediumd runs at a real-time priority). Measured
        # at 54 Mbit/s TCP, one hop, virtual time: delivery lag p99 213 us -> 131 us.
        append = ["root=/dev/vda", "rw", "console=ttyS0", "quiet", "loglevel=3", "panic=-1",
                  "tsc=reliable", "preempt=full"]
        append += os.environ.get("HARNESS_VM_APPEND", "").split()  # extra kernel args, for diagnosis
        append += [f"harness.share={s.tag}:{s.guest_path}" + (":snapshot" if s.snapshot else "")
                   for s in cfg.shares]
        if cfg.interactive:
            append += ["harness.shell=1", f"harness.cwd={cfg.guest_cwd}"]
        argv = ["qemu-system-x86_64", "-accel", accel, "-cpu", "host" if cfg.accel == "kvm" else "max",
                "-smp", str(cpus), "-m", str(cfg.memory_mb), "-nodefaults", "-no-user-config",
                "-display", "none", "-vga", "none", "-no-reboot",
                "-kernel", str(self.image.kernel), "-initrd", str(self.image.initrd),
                "-append", " ".join(append),
                "-drive", f"file={self.image.rootfs},format=raw,if=virtio,cache=unsafe,snapshot=on",
                "-device", "virtio-serial-pci",
                "-chardev", f"socket,id=agent,path={self.sock_path},server=on,wait=off",
                "-device", f"virtserialport,chardev=agent,name={AGENT_PORT}",
                ]
        if virtual:
            # sleep=off: idle guest time is skipped, not waited for; -rtc clock=vm keeps the
            # guest's RTC on the same virtual clock.
            argv += ["-icount", f"shift={ICOUNT_SHIFT},sleep=off", "-rtc", "clock=vm"]
        if cfg.seed is not None:
            argv += ["-seed", str(cfg.seed)]
        else:
            argv += ["-device", "virtio-rng-pci"]  # guest entropy from the host
        for s in cfg.shares:
            argv += ["-virtfs", f"local,path={s.host_path},mount_tag={s.tag},"
                                f"security_model=none,id={s.tag}"]
        if cfg.console:
            # Ctrl-C and friends go to the guest's terminal (signal=off), not to QEMU; Ctrl-]
            # (not Ctrl-A, which readline needs) is the monitor's escape: Ctrl-] x kills the VM.
            argv += ["-chardev", "stdio,id=console,mux=on,signal=off", "-serial", "chardev:console",
                     "-mon", "chardev=console,mode=readline", "-echr", str(CONSOLE_ESCAPE)]
        else:
            argv += ["-serial", "mon:stdio" if cfg.interactive else f"file:{self.console_log}"]
        return argv

    def start(self, timeout: float = BOOT_TIMEOUT_S) -> VM:
        self.slot.acquire(out=sys.stderr)
        t0 = time.monotonic()
        interactive = self.config.interactive
        on_terminal = interactive or self.config.console
        self.proc = subprocess.Popen(
            self.command_line(), preexec_fn=cleanup.die_with_parent,
            stdin=None if on_terminal else subprocess.DEVNULL,
            stdout=None if on_terminal else subprocess.DEVNULL,
            stderr=None if interactive else open(self.rundir / "qemu.err", "w"))
        if interactive:
            return self
        try:
            self._connect(deadline=t0 + timeout)
        except BaseException:
            self.stop()
            raise
        self.boot_seconds = time.monotonic() - t0
        return self

    def _connect(self, deadline: float) -> None:
        proc = self.proc
        if proc is None:
            raise HarnessError("the VM is not started: call start() first")
        while True:
            if proc.poll() is not None:
                raise HarnessError(f"the VM exited during boot (qemu rc {proc.returncode}): "
                                   f"{self._diagnostics()}")
            if self._boot_failed():
                raise HarnessError(f"the VM failed to boot: {self._diagnostics()}")
            if time.monotonic() > deadline:
                raise HarnessError(f"the VM did not become ready in time: {self._diagnostics()}")
            if self.sock is None and self.sock_path.exists():
                try:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.connect(str(self.sock_path))
                    self.sock = s
                    self._reader = threading.Thread(target=self._read_loop, daemon=True)
                    self._reader.start()
                except OSError:
                    self.sock = None
            if self.sock is not None and self.ping(timeout=0.5):
                return
            time.sleep(0.2)

    def _boot_failed(self) -> bool:
        """The guest says it cannot boot (no need to wait for the timeout)."""
        if not self.console_log.exists():
            return False
        text = self.console_log.read_text(errors="replace")
        return any(m in text for m in ("initrd: cannot mount", "Kernel panic", "can't execute"))

    def _diagnostics(self) -> str:
        parts = []
        for p in (self.rundir / "qemu.err", self.console_log):
            if p.exists():
                tail = p.read_text(errors="replace").strip().splitlines()[-8:]
                if tail:
                    parts.append(f"{p.name}: " + " | ".join(tail))
        return "; ".join(parts) or "no output"

    def stop(self) -> None:
        """Power the guest off (it holds nothing: the disk is a snapshot) and reap QEMU."""
        self.slot.cancel()
        if self.proc is not None and self.proc.poll() is None:
            if self.sock is not None:
                try:
                    self._send({"id": 0, "op": "poweroff"})
                    self.proc.wait(timeout=3)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        self.slot.release()
        for p in sorted(self.rundir.glob("*")):
            p.unlink(missing_ok=True)
        try:
            self.rundir.rmdir()
        except OSError:
            pass

    def wait(self) -> int:
        """Wait for QEMU to exit (the interactive shell ends it); its exit code."""
        if self.proc is None:
            raise HarnessError("the VM is not started: call start() first")
        return self.proc.wait()

    def __enter__(self) -> VM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- agent protocol --------------------------------------------------------------
    def _send(self, msg: Dict[str, Any]) -> None:
        data = (json.dumps(msg) + "\n").encode()
        with self._lock:
            if self.sock is None:
                raise OSError("no connection to the VM's agent")
            self.sock.sendall(data)

    def _read_loop(self) -> None:
        buf = b""
        sock = self.sock
        if sock is None:
            return
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                for waiting in list(self._handlers.values()):
                    waiting({"rc": 255, "err": "harness: lost the connection to the VM\n"})
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                handler = self._handlers.get(msg.get("id"))
                if handler is not None:
                    handler(msg)

    def _new_id(self) -> int:
        with self._lock:
            self._next_id += 1
            return self._next_id

    def ping(self, timeout: float = 2.0) -> bool:
        req_id = self._new_id()
        done = threading.Event()
        self._handlers[req_id] = lambda msg: done.set()
        try:
            self._send({"id": req_id, "op": "ping"})
        except OSError:
            return False
        ok = done.wait(timeout)
        self._handlers.pop(req_id, None)
        return ok

    def run(self, script: str, *, cwd: str = "/", env: Optional[Dict[str, str]] = None,
            on_out: Callable[[str], object] = lambda s: None,
            on_err: Callable[[str], object] = lambda s: None,
            timeout: Optional[float] = None) -> int:
        """Run a bash script in the guest, streaming its output; return its exit code.

        Ctrl-C (KeyboardInterrupt) is forwarded as SIGINT to the script's process group;
        a second Ctrl-C or 15 s without exit kills it.
        """
        req_id = self._new_id()
        finished = threading.Event()
        result: Dict[str, Optional[int]] = {"rc": None}

        def handle(msg: Dict[str, Any]) -> None:
            if "out" in msg:
                on_out(msg["out"])
            if "err" in msg:
                on_err(msg["err"])
            if "rc" in msg:
                result["rc"] = msg["rc"]
                finished.set()

        self._handlers[req_id] = handle
        self._send({"id": req_id, "op": "run", "cmd": script, "cwd": cwd, "env": env or {}})
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while not finished.wait(0.2):
                if deadline is not None and time.monotonic() > deadline:
                    self._send({"id": 0, "op": "signal", "target": req_id, "sig": 9})
                    finished.wait(5)
                    raise HarnessError(f"command timed out in the VM after {timeout:.0f} s")
        except KeyboardInterrupt:
            self._send({"id": 0, "op": "signal", "target": req_id, "sig": signal.SIGINT})
            try:
                finished.wait(15)
            except KeyboardInterrupt:
                pass
            if not finished.is_set():
                self._send({"id": 0, "op": "signal", "target": req_id, "sig": 9})
                finished.wait(3)
            raise
        finally:
            self._handlers.pop(req_id, None)
        rc = result["rc"]
        if rc is None:
            raise HarnessError(f"the VM's agent finished request {req_id} without an exit code")
        return int(rc)

    def check_output(self, script: str, timeout: float = 60) -> str:
        out: List[str] = []
        err: List[str] = []
        rc = self.run(script, on_out=out.append, on_err=err.append, timeout=timeout)
        if rc != 0:
            raise HarnessError(f"command failed in the VM (rc {rc}): {script}\n{''.join(err)}")
        return "".join(out)


# -- KVM ----------------------------------------------------------------------------------
def choose_accel(image: Image) -> str:
    """``HARNESS_VM_ACCEL`` (tcg|kvm|auto, default auto). Auto uses KVM only after a boot
    probe with a short timeout proved it works on this host; the verdict is cached."""
    wanted = os.environ.get("HARNESS_VM_ACCEL", "auto")
    if wanted not in ("tcg", "kvm", "auto"):
        raise HarnessError(f"HARNESS_VM_ACCEL={wanted!r}: allowed values are tcg, kvm, auto")
    if wanted != "auto":
        return wanted
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    probe_file = cache_dir() / f"kvm-probe-{os.uname().release}.json"
    if probe_file.exists():
        return json.loads(probe_file.read_text())["accel"]
    accel = "tcg"
    vm = VM(image, VMConfig(accel="kvm", memory_mb=512, cpus=1))
    try:
        vm.start(timeout=KVM_PROBE_TIMEOUT_S)
        accel = "kvm"
    except HarnessError:
        pass
    finally:
        vm.stop()
    probe_file.write_text(json.dumps({"accel": accel, "probed_at": time.time()}))
    return accel


# -- clean-up after a killed harness (registered with harness.kernel.cleanup) ---------------
def clean_run_folders(tag: Optional[str], report: cleanup.CleanReport,
                      base: Optional[Path] = None) -> None:
    """Folders ``hx-vm-*`` whose harness is gone, the QEMU still serving one, and QEMU
    orphans of a folder already deleted. A VM belongs to no run: nothing with ``--tag``."""
    if tag is not None:
        return
    base = Path(tempfile.gettempdir()) if base is None else base
    for path in cleanup.abandoned_dirs(base, RUNDIR_PREFIX + "*", unclaimed=True):
        cleanup.remove_abandoned(path, "VM folder", report)
    orphans = [pid for pid in cleanup.pids() if cleanup.parent_pid(pid) == 1
               and f"{base}/{RUNDIR_PREFIX}" in cleanup.cmdline(pid)]
    for pid in orphans:
        report.add("process", f"{pid} {cleanup.cmdline(pid)[:80]}")
    cleanup.kill_all(orphans)


def run_folders_left(tag: Optional[str], base: Optional[Path] = None) -> List[str]:
    if tag is not None:
        return []
    base = Path(tempfile.gettempdir()) if base is None else base
    return [f"VM folder {p}" for p in cleanup.abandoned_dirs(base, RUNDIR_PREFIX + "*", unclaimed=True)]


cleanup.add_cleanup_callback("VM run folders", clean_run_folders, stage="files",
                             leftovers=run_folders_left)
