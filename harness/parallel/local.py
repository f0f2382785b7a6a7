"""``harness run --jobs N``: N runs at once on this host, each job runner in a thread of its
own (in the VM case each with its own guest), records handed back to the one runner that
writes the store. A runner whose thread finds no run left stops its VM at once: an idle guest
in virtual time is not free (its clock races from timer to timer, docs/vm.md) and would take
host CPU from the runs still under way."""
from __future__ import annotations

import sys
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Dict, Generator, List, Set, Tuple

from harness.experiment.progress import Progress
from harness.experiment.runner import base_environment, failed_record
from harness.experiment.schema import Experiment
from harness.experiment.sweep import Run
from harness.parallel.jobs import JobFailed, JobRunner
from harness.parallel.worker import Job


class LocalPool:
    """``workers`` job runners on this host."""

    def __init__(self, workers: int, seeded: bool = False):
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.workers = workers
        self.seeded = seeded
        self._local = threading.local()
        self._runners: List[JobRunner] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        #: Runs handed to the pool and not yet started by a runner.
        self._unstarted = 0

    def _runner(self, progress: Progress) -> JobRunner:
        runner = getattr(self._local, "runner", None)
        if runner is None or runner.closed:
            with self._lock:
                runner = JobRunner(f"job runner {len(self._runners) + 1}", say=progress.message,
                                   seeded=self.seeded)
                self._runners.append(runner)
            self._local.runner = runner
        return runner

    def _execute(self, exp: Experiment, run: Run, progress: Progress) -> Dict[str, Any]:
        if self._closing.is_set():
            raise JobFailed("the pool is closing")
        progress.start(f"{run.run_id} {run.label()}")
        with self._lock:
            self._unstarted -= 1
        runner = self._runner(progress)
        try:
            return runner.run(Job(exp.name, run))
        except JobFailed as err:
            if self._closing.is_set():
                raise
            return failed_record(exp.name, run, base_environment(), str(err))
        finally:
            with self._lock:
                idle = self._unstarted <= 0
            if idle:  # nothing left for this runner: stop its VM now, not at the sweep's end
                runner.close()

    def records(self, exp: Experiment, runs: List[Run], progress: Progress
                ) -> Generator[Tuple[Run, Dict[str, Any]], None, None]:
        executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="harness-job")
        with self._lock:
            self._unstarted += len(runs)
        futures: Dict[Future[Dict[str, Any]], Run] = {
            executor.submit(self._execute, exp, run, progress): run for run in runs}
        pending: Set[Future[Dict[str, Any]]] = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield futures[future], future.result()
        finally:
            self.close()
            executor.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        """Stop every job under way and every VM (their runs are not stored)."""
        self._closing.set()
        with self._lock:
            runners = list(self._runners)
        for runner in runners:
            try:
                runner.close()
            except Exception as err:  # keep closing the others
                print(f"harness: closing {runner.name}: {err}", file=sys.stderr)
