"""``harness run --cluster ADDRESS``: runs sent to Dask distributed workers.

Why Dask: it is pure Python and pip-installable wherever the harness is, a worker is one
command (``dask worker tcp://SCHEDULER:8786 --nthreads 1``) on any machine with the harness
installed, dask-jobqueue starts the same workers through Slurm or PBS where researchers have
clusters, a worker that dies has its task run again elsewhere, and its futures hand each
result back to the one process that writes the store. docs/parallel.md compares it with Ray.

Each worker process keeps a ``JobRunner`` per thread (a fresh UML guest per run, or natively
a child process per run). The client keeps at most one run per
worker thread in flight, so progress shows the runs really under way and Ctrl-C abandons few:
a run already executing on a worker finishes there, and its result is dropped, not stored.
"""
from __future__ import annotations

import atexit
import threading
import uuid
from typing import TYPE_CHECKING, Any, Dict, Generator, List, Optional, Tuple

from harness.errors import HarnessError
from harness.experiment.progress import Progress
from harness.experiment.runner import base_environment, failed_record
from harness.experiment.schema import Experiment
from harness.experiment.sweep import Run
from harness.parallel.jobs import JobRunner
from harness.parallel.worker import Job

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

LOCAL_PREFIX = "local:"
CONNECT_TIMEOUT_S = 30

_worker_state = threading.local()


def run_job(job_json: str) -> Dict[str, Any]:
    """What a Dask worker executes: one job, on this worker thread's job runner."""
    runner: Optional[JobRunner] = getattr(_worker_state, "runner", None)
    if runner is None:
        runner = JobRunner(f"dask worker thread {threading.get_ident()}")
        _worker_state.runner = runner
        atexit.register(runner.close)
    return runner.run(Job.from_json(job_json))


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise HarnessError("--cluster needs Dask distributed: pip install distributed "
                           "(scripts/install-host-deps.sh installs it)") from None
    return distributed


def check_address(address: str) -> str:
    """``local:N`` or a scheduler address (``tcp://host:8786``, ``host:8786``)."""
    if address.startswith(LOCAL_PREFIX):
        count = address[len(LOCAL_PREFIX):]
        if not count.isdigit() or int(count) < 1:
            raise HarnessError(f"--cluster {address!r}: allowed 'local:N' with N >= 1 workers, "
                               "or a scheduler address such as tcp://host:8786")
        return address
    if not address or any(c.isspace() for c in address) or ":" not in address:
        raise HarnessError(f"--cluster {address!r}: allowed 'local:N' with N >= 1 workers, "
                           "or a scheduler address such as tcp://host:8786")
    return address


class ClusterPool:
    """Runs on the workers of a Dask scheduler (or of a local cluster this pool starts)."""

    def __init__(self, address: str):
        distributed = _distributed()
        self.address = check_address(address)
        self.cluster: Optional[LocalCluster] = None
        if address.startswith(LOCAL_PREFIX):
            self.cluster = distributed.LocalCluster(
                n_workers=int(address[len(LOCAL_PREFIX):]), threads_per_worker=1,
                processes=True, dashboard_address=None)
            target: Any = self.cluster
        else:
            target = address
        try:
            self.client: Client = distributed.Client(target, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as err:
            self._close_cluster()
            raise HarnessError(f"--cluster {address}: cannot reach the Dask scheduler: {err}") from None
        self.workers = sum(self.client.nthreads().values())
        if self.workers < 1:
            self.close()
            raise HarnessError(f"--cluster {address}: the scheduler has no workers "
                               "(start some: dask worker ADDRESS --nthreads 1)")

    def records(self, exp: Experiment, runs: List[Run], progress: Progress
                ) -> Generator[Tuple[Run, Dict[str, Any]], None, None]:
        distributed = _distributed()
        queue = list(runs)
        in_flight: Dict[str, Run] = {}
        futures: Dict[str, Any] = {}
        finished = distributed.as_completed()
        tag = uuid.uuid4().hex[:8]

        def top_up() -> None:
            while queue and len(in_flight) < self.workers:
                run = queue.pop(0)
                key = f"harness-{exp.name}-{run.run_id}-{tag}"
                future = self.client.submit(run_job, Job(exp.name, run).to_json(), pure=False,
                                            key=key)
                in_flight[key] = run
                futures[key] = future
                finished.add(future)
                progress.start(f"{run.run_id} {run.label()}")

        top_up()
        try:
            for future in finished:
                key = str(future.key)
                run = in_flight.pop(key)
                futures.pop(key, None)
                try:
                    record = future.result()
                except Exception as err:  # the worker's JobFailed, or the worker itself died
                    record = failed_record(exp.name, run, base_environment(),
                                           f"cluster worker: {type(err).__name__}: {err}")
                top_up()
                yield run, record
        finally:
            if futures:
                self.client.cancel(list(futures.values()))
            self.close()

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            self._close_cluster()

    def _close_cluster(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
