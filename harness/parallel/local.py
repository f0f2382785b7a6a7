"""``harness run --jobs N``: N runs at once on this host, each job runner in a thread of its
own (each run in a fresh guest), records handed back to the one runner that writes the
store."""
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

    def __init__(self, workers: int):
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.workers = workers
        self._local = threading.local()
        self._runners: List[JobRunner] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()

    def _runner(self, progress: Progress) -> JobRunner:
        runner = getattr(self._local, "runner", None)
        if runner is None or runner.closed:
            with self._lock:
                runner = JobRunner(f"job runner {len(self._runners) + 1}", say=progress.message)
                self._runners.append(runner)
            self._local.runner = runner
        return runner

    def _execute(self, exp: Experiment, run: Run, progress: Progress) -> Dict[str, Any]:
        if self._closing.is_set():
            raise JobFailed("the pool is closing")
        progress.start(f"{run.run_id} {run.label()}")
        runner = self._runner(progress)
        try:
            return runner.run(Job(exp.name, run))
        except JobFailed as err:
            if self._closing.is_set():
                raise
            return failed_record(exp.name, run, base_environment(), str(err))

    def records(self, exp: Experiment, runs: List[Run], progress: Progress
                ) -> Generator[Tuple[Run, Dict[str, Any]], None, None]:
        executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="harness-job")
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
        """Stop every job under way (their runs are not stored)."""
        self._closing.set()
        with self._lock:
            runners = list(self._runners)
        for runner in runners:
            try:
                runner.close()
            except Exception as err:  # keep closing the others
                print(f"harness: closing {runner.name}: {err}", file=sys.stderr)
