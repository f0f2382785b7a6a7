"""Jobs executed one after another on this host, each by ``harness.parallel.worker``: in a
fresh UML guest per run (the default engine), or natively in a child process.

A ``JobRunner`` is one slot of a pool: one thread of ``--jobs N``, one Dask worker.
"""
from __future__ import annotations

import collections
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Deque, Dict, Optional

from harness.errors import HarnessError
from harness.parallel.worker import Job, encode, parse_record
from harness.paths import code_root
from harness.vm import dispatch

#: Lines of a failed job's standard error kept for its error message.
STDERR_TAIL = 12
WORKER_MODULE = "harness.parallel.worker"


def kernel_variant(job: Job) -> Optional[str]:
    """The kernel build a run asks for (policy ``mac80211``: an edited mac80211 is a second
    kernel binary in the UML engine)."""
    policy = job.run.params.get("policy") or {}
    value = policy.get("mac80211") if isinstance(policy, dict) else None
    return str(value) if value else None


class JobFailed(HarnessError):
    """A job gave no record: its worker, its guest or its process failed (the run's own failures
    come back as records with status ``failed``)."""


class JobRunner:
    """Runs jobs one at a time, natively or each in a guest; ``close()`` stops the one under way."""

    def __init__(self, name: str = "worker", say: Callable[[str], None] = lambda text: None):
        self.name = name
        self.say = say
        self._proc: Optional[subprocess.Popen[str]] = None
        self._lock = threading.Lock()
        self._closed = False
        self._guest: Any = None
        self._told = False

    @property
    def closed(self) -> bool:
        return self._closed

    def run(self, job: Job) -> Dict[str, Any]:
        """The job's record, its ``timing`` completed with what the run cost this host
        (``host_seconds``, wall); ``JobFailed`` when no record came back."""
        if self._closed:
            raise JobFailed(f"{self.name} is closed")
        t0 = time.monotonic()
        record = self._in_uml(job) if dispatch.needs_vm() else self._in_process(job)
        record.setdefault("timing", {})["host_seconds"] = round(time.monotonic() - t0, 3)
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
    def _in_uml(self, job: Job) -> Dict[str, Any]:
        """A fresh guest for every run, seeded with the run's seed and booted with the kernel
        the run asks for: its record depends on nothing else (docs/engine.md)."""
        from harness.vm.uml import GuestHung, UMLConfig, UMLGuest, guest_python
        kernel = dispatch.prepare()
        files = Path(job.run.files) if job.run.files else None  # its only writeable folder
        guest = UMLGuest(kernel, UMLConfig(seed=job.run.seed, variant=kernel_variant(job),
                                           output=files))
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
        script = dispatch.cache_script() + \
            f"exec {guest_python()} -m {WORKER_MODULE}"
        try:
            rc = guest.run(script, env=dispatch.guest_env(job.run.seed), cwd=str(code_root()),
                           on_out=out.append, on_err=err.append, stdin=encode(job).encode())
        except GuestHung as error:
            from harness.experiment.runner import base_environment, failed_record
            return failed_record(job.experiment, job.run, base_environment(), str(error))
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
        return record

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
        """Stop the job under way (its run is not stored); idempotent."""
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
