"""Jobs executed one after another on this host, each by ``harness.parallel.worker``: natively
in a child process, or, where this host has no mac80211_hwsim, in a VM of this runner's own
(booted at its first job and kept for the next, booted again after it failed).

A ``JobRunner`` is one slot of a pool: one thread of ``--jobs N``, one Dask worker.
"""
from __future__ import annotations

import collections
import subprocess
import sys
import threading
from typing import Any, Callable, Deque, Dict, Optional

from harness.errors import HarnessError
from harness.parallel.worker import Job, encode, parse_record
from harness.paths import code_root
from harness.vm import dispatch
from harness.vm.image import ensure_image
from harness.vm.machine import VM, VMConfig, choose_accel

#: Lines of a failed job's standard error kept for its error message.
STDERR_TAIL = 12
WORKER_MODULE = "harness.parallel.worker"


class JobFailed(HarnessError):
    """A job gave no record: its worker, its VM or its process failed (the run's own failures
    come back as records with status ``failed``)."""


class JobRunner:
    """Runs jobs one at a time, natively or in its own VM; ``close()`` stops the VM."""

    def __init__(self, name: str = "worker", say: Callable[[str], None] = lambda text: None):
        self.name = name
        self.say = say
        self.vm: Optional[VM] = None
        self._proc: Optional[subprocess.Popen[str]] = None
        self._lock = threading.Lock()
        self._closed = False

    def run(self, job: Job) -> Dict[str, Any]:
        """The job's record; ``JobFailed`` when none came back."""
        if self._closed:
            raise JobFailed(f"{self.name} is closed")
        if dispatch.needs_vm():
            return self._in_vm(job)
        return self._in_process(job)

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

    # -- in a VM ----------------------------------------------------------------------
    def _boot(self) -> VM:
        image = ensure_image(out=sys.stderr)
        shares, _ = dispatch.shares_for(code_root())
        vm = VM(image, VMConfig(accel=choose_accel(image), shares=shares))
        with self._lock:
            if self._closed:
                raise JobFailed(f"{self.name} is closed")
            self.vm = vm
        vm.start()
        self.say(f"{self.name}: VM ready in {vm.boot_seconds:.1f} s "
                 f"({dispatch.clock_label(vm)})")
        return vm

    def _in_vm(self, job: Job) -> Dict[str, Any]:
        if self.vm is not None and (self.vm.proc is None or self.vm.proc.poll() is not None):
            self._drop_vm()  # QEMU is gone (killed, or its parent thread ended): boot again
        vm = self.vm if self.vm is not None else self._boot()
        out: list = []
        err: Deque[str] = collections.deque(maxlen=200)
        script = f"printf %s {encode(job)} | exec python3 -m {WORKER_MODULE}"
        try:
            rc = vm.run(script, cwd=dispatch.GUEST_CODE, env=dispatch.guest_env(vm),
                        on_out=out.append, on_err=err.append)
        except (OSError, HarnessError) as error:
            self._drop_vm()
            raise JobFailed(f"{self.name}: the VM failed during run {job.run.run_id}: {error}") from None
        if rc == 255:  # the agent's connection is gone: the VM died
            self._drop_vm()
        return self._record(job, "".join(out), "".join(err), rc)

    def _drop_vm(self) -> None:
        with self._lock:
            vm, self.vm = self.vm, None
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
        if proc is not None and proc.poll() is None:
            proc.terminate()  # the worker tears its run down (SIGTERM = Ctrl-C)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        self._drop_vm()
