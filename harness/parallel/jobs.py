"""Jobs executed one after another on this host, each by ``harness.parallel.worker``: natively
in a child process, or, where this host has no mac80211_hwsim, in a VM of this runner's own
(booted at its first job and kept for the next, booted again after it failed). In a VM the
worker is a fork server started once per boot, so a run does not pay for importing the harness
(harness/parallel/forkserver.py).

A ``JobRunner`` is one slot of a pool: one thread of ``--jobs N``, one Dask worker. With
``seeded`` it boots a fresh VM for every job instead, from the run's seed (QEMU ``-seed``, no
host entropy device, a fixed Python hash seed): the same boot state for every rerun of a run
(docs/vm.md measures how far that makes reruns repeat).
"""
from __future__ import annotations

import collections
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Deque, Dict, Optional, Tuple

from harness.errors import HarnessError
from harness.parallel.worker import Job, encode, parse_record
from harness.paths import code_root
from harness.vm import dispatch
from harness.vm.engine import engine
from harness.vm.image import ensure_image
from harness.vm.machine import VM, VMConfig, choose_accel

#: Lines of a failed job's standard error kept for its error message.
STDERR_TAIL = 12
WORKER_MODULE = "harness.parallel.worker"
#: The guest's fork server (harness/parallel/forkserver.py): one per VM, started after boot.
FORK_SERVER_MODULE = "harness.parallel.forkserver"
FORK_CLIENT = "harness/parallel/fork_client.py"
FORK_SOCKET = "/run/hx-forkserver.sock"
#: fork_client.py's exit code when no server answers.
NO_FORK_SERVER = 75


def process_cpu_seconds(pid: int) -> Optional[float]:
    """utime + stime of a process (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def kernel_variant(job: Job) -> Optional[str]:
    """The kernel build a run asks for (policy ``mac80211``: an edited mac80211 is a second
    kernel binary in the UML engine)."""
    policy = job.run.params.get("policy") or {}
    value = policy.get("mac80211") if isinstance(policy, dict) else None
    return str(value) if value else None


class JobFailed(HarnessError):
    """A job gave no record: its worker, its VM or its process failed (the run's own failures
    come back as records with status ``failed``)."""


class JobRunner:
    """Runs jobs one at a time, natively or in its own VM; ``close()`` stops the VM."""

    def __init__(self, name: str = "worker", say: Callable[[str], None] = lambda text: None,
                 seeded: bool = False):
        self.name = name
        self.say = say
        self.seeded = seeded
        self.vm: Optional[VM] = None
        self._proc: Optional[subprocess.Popen[str]] = None
        self._lock = threading.Lock()
        self._closed = False
        self._fork_server_started = False
        self._guest: Any = None
        self._told = False

    @property
    def closed(self) -> bool:
        return self._closed

    def run(self, job: Job) -> Dict[str, Any]:
        """The job's record, its ``timing`` completed with what the run cost this host:
        ``host_seconds`` (wall) and, in a VM, ``host_cpu_seconds`` (QEMU's CPU time: the
        figure to plan a sweep's wall time by, since other loads do not change it);
        ``JobFailed`` when no record came back."""
        if self._closed:
            raise JobFailed(f"{self.name} is closed")
        t0 = time.monotonic()
        if dispatch.needs_vm() and engine() == "uml":
            record, cpu = self._in_uml(job)
        elif dispatch.needs_vm():
            record, cpu = self._in_vm(job)
        else:
            record, cpu = self._in_process(job), None
        timing = record.setdefault("timing", {})
        timing["host_seconds"] = round(time.monotonic() - t0, 3)
        if cpu is not None:
            timing["host_cpu_seconds"] = round(cpu, 3)
        return record

    # -- natively ---------------------------------------------------------------------
    def _in_process(self, job: Job) -> Dict[str, Any]:
        proc = subprocess.Popen([sys.executable, "-m", WORKER_MODULE], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with self._lock:
            self._proc = proc
        try:
            out, err = proc.communicate(encode(job))
        finally:
            with self._lock:
                self._proc = None
        return self._record(job, out, err, proc.returncode)

    # -- in a UML guest of its own ----------------------------------------------------
    def _in_uml(self, job: Job) -> Tuple[Dict[str, Any], Optional[float]]:
        """A fresh guest for every run, seeded with the run's seed and booted with the kernel
        the run asks for: its record depends on nothing else (docs/engine.md)."""
        from harness.vm import uml_dispatch
        from harness.vm.uml import GuestHung, UMLConfig, UMLGuest, guest_python
        kernel = uml_dispatch.prepare()
        guest = UMLGuest(kernel, UMLConfig(seed=job.run.seed, variant=kernel_variant(job)))
        with self._lock:
            if self._closed:
                raise JobFailed(f"{self.name} is closed")
            self._guest = guest
        if not self._told:
            self.say(f"{self.name}: a fresh UML guest per run ({kernel.label()}, virtual "
                     "time, one host CPU each)")
            self._told = True
        out: list = []
        err: Deque[str] = collections.deque(maxlen=200)
        script = uml_dispatch.cache_script() + \
            f"exec {guest_python()} -m {WORKER_MODULE}"
        try:
            rc = guest.run(script, env=uml_dispatch.guest_env(job.run.seed), cwd=str(code_root()),
                           on_out=out.append, on_err=err.append, stdin=encode(job).encode())
        except GuestHung as error:
            from harness.experiment.runner import base_environment, failed_record
            record = failed_record(job.experiment, job.run, base_environment(), str(error))
            return record, None
        except (OSError, HarnessError) as error:
            raise JobFailed(f"{self.name}: the UML guest failed during run {job.run.run_id}: "
                            f"{error}") from None
        finally:
            with self._lock:
                self._guest = None
        record = self._record(job, "".join(out), "".join(err), rc)
        timing = record.setdefault("timing", {})
        if guest.boot_seconds is not None:
            timing["boot_seconds"] = round(guest.boot_seconds, 3)
        timing["host_peak_rss_mb"] = round(guest.peak_rss_mb, 1)
        timing["longest_clock_stall_s"] = round(guest.longest_stall_s, 1)
        return record, None

    # -- in a VM ----------------------------------------------------------------------
    def _boot(self, seed: Optional[int] = None) -> VM:
        image = ensure_image(out=sys.stderr)
        shares, _ = dispatch.shares_for(code_root())
        vm = VM(image, VMConfig(accel=choose_accel(image), shares=shares, seed=seed))
        with self._lock:
            if self._closed:
                raise JobFailed(f"{self.name} is closed")
            self.vm = vm
        vm.start()
        if seed is None:
            self.say(f"{self.name}: VM ready in {vm.boot_seconds:.1f} s "
                     f"({dispatch.clock_label(vm)})")
        return vm

    def _in_vm(self, job: Job) -> Tuple[Dict[str, Any], Optional[float]]:
        if self.vm is not None and (self.vm.proc is None or self.vm.proc.poll() is not None):
            self._drop_vm()  # QEMU is gone (killed, or its parent thread ended): boot again
        if self.seeded:
            self._drop_vm()
            vm = self._boot(seed=job.run.seed)
        else:
            vm = self.vm if self.vm is not None else self._boot()
        out: list = []
        err: Deque[str] = collections.deque(maxlen=200)
        if self.seeded:  # one run per boot: nothing to share, and the boot state stays the seed's
            script = f"printf %s {encode(job)} | exec python3 -m {WORKER_MODULE}"
        else:
            script = (f"printf %s {encode(job)} | "
                      f"exec python3 {dispatch.GUEST_CODE}/{FORK_CLIENT} {FORK_SOCKET}")
        cpu0 = process_cpu_seconds(vm.proc.pid) if vm.proc is not None else None
        try:
            if not self.seeded and not self._fork_server_started:
                self._start_fork_server(vm)
            rc = vm.run(script, cwd=dispatch.GUEST_CODE, env=dispatch.guest_env(vm),
                        on_out=out.append, on_err=err.append)
            if rc == NO_FORK_SERVER and not self.seeded:  # it died: start it again, once
                self._start_fork_server(vm)
                out.clear()
                err.clear()
                rc = vm.run(script, cwd=dispatch.GUEST_CODE, env=dispatch.guest_env(vm),
                            on_out=out.append, on_err=err.append)
        except (OSError, HarnessError) as error:
            self._drop_vm()
            raise JobFailed(f"{self.name}: the VM failed during run {job.run.run_id}: {error}") from None
        cpu1 = process_cpu_seconds(vm.proc.pid) if vm.proc is not None else None
        cpu = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
        if rc == 255 or self.seeded:  # the VM died, or it served its one run
            self._drop_vm()
        return self._record(job, "".join(out), "".join(err), rc), cpu

    def _start_fork_server(self, vm: VM) -> None:
        """Start the guest's fork server in the background (its own session, so it outlives
        the command that starts it); the client waits for its socket."""
        script = (f"rm -f {FORK_SOCKET}; setsid python3 -m {FORK_SERVER_MODULE} {FORK_SOCKET} "
                  "</dev/null >/tmp/hx-forkserver.log 2>&1 &")
        rc = vm.run(script, cwd=dispatch.GUEST_CODE, env=dispatch.guest_env(vm))
        if rc != 0:
            raise HarnessError(f"{self.name}: the guest's fork server did not start (exit {rc})")
        self._fork_server_started = True

    def _drop_vm(self) -> None:
        with self._lock:
            vm, self.vm = self.vm, None
        self._fork_server_started = False
        if vm is not None:
            vm.stop()

    # -- results ----------------------------------------------------------------------
    def _record(self, job: Job, out: str, err: str, rc: Optional[int]) -> Dict[str, Any]:
        try:
            record = parse_record(out)
        except ValueError as error:
            raise JobFailed(f"run {job.run.run_id}: the worker's record is not JSON: {error}") from None
        if record is None:
            tail = " | ".join(err.strip().splitlines()[-STDERR_TAIL:]) or "no output"
            raise JobFailed(f"run {job.run.run_id}: the worker gave no record (exit {rc}): {tail}")
        return record

    def close(self) -> None:
        """Stop the job under way (its run is not stored) and the VM; idempotent."""
        with self._lock:
            self._closed = True
            proc = self._proc
            guest = self._guest
        if guest is not None:
            guest.stop()
        if proc is not None and proc.poll() is None:
            proc.terminate()  # the worker tears its run down (SIGTERM = Ctrl-C)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        self._drop_vm()
