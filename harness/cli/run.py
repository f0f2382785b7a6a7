"""``harness run FILE [FILE ...]``: validate experiments, list or execute their runs one file
after another, resume where they stopped."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable, List, Optional

from harness.analysis.plot import short_name, value_label
from harness.cli.options import add_engine_option
from harness.errors import HarnessError
from harness.experiment import schema
from harness.experiment.lag import AUTO, Threshold, to_redo
from harness.experiment.store import Store
from harness.experiment.sweep import Run, expand, within_repetitions

if TYPE_CHECKING:
    from harness.cli import Subparsers
    from harness.experiment.runner import RunPool


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="run an experiment file (sweep, store, resume)",
        description="Validate FILE, then execute every run of its sweep that has no record in "
                    "the output directory yet (so rerunning resumes). Records: OUTPUT/runs/*.json. "
                    "Several files run one after another with the same options (every file is "
                    "checked before the first run starts); Ctrl-C stops the queue.")
    p.add_argument("files", nargs="+", metavar="file",
                   help="experiment YAML (see docs/experiments.md); several: a queue")
    p.add_argument("--check-determinism", action="store_true",
                   help="run the file's first run twice, each in a fresh guest, and compare "
                        "the two records byte for byte (the timing field aside); stores "
                        "nothing (docs/engine.md)")
    p.add_argument("--dry-run", action="store_true",
                   help="validate and list the runs (with done/pending status); run nothing")
    p.add_argument("--output", metavar="DIR", help="results directory (default: the file's output)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--resume", dest="fresh", action="store_false",
                      help="skip runs already stored (default)")
    mode.add_argument("--fresh", dest="fresh", action="store_true",
                      help="move existing results to OUTPUT/archive/<time>/ and start again")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: 1 repetition, first and last value of each sweep list, "
                        "flows cut to 5 s (bulk transfers to 2 MB); results go to OUTPUT-quick")
    p.add_argument("--repetitions", metavar="K", type=job_count,
                   help="run only the first K repetitions of the file's sweep (K = 1: one pass "
                        "over every point, e.g. on each of several layouts before any repeats); "
                        "the rest stay pending for a rerun without this option")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failed run")
    p.add_argument("--retry-failed", action="store_true",
                   help="run again the runs whose stored record says failed")
    p.add_argument("--retry-lagged", metavar="MS|auto", type=lag_threshold,
                   help="run again the ok runs whose medium delivery lag p99 exceeded MS "
                        "milliseconds, or with 'auto' the runs the report flags (above twice "
                        "the median of the other runs of their kind); a busy host perturbed "
                        "them. Their "
                        "old records move to OUTPUT/archive/replaced/")
    p.add_argument("--no-report", dest="report", action="store_false",
                   help="do not print the summary table nor write OUTPUT/report.md at the end")
    p.add_argument("--jobs", metavar="N", type=job_count,
                   help="runs executed at once, each in a guest of its own pinned to a host "
                        "CPU (default: one per host CPU; natively 1). The records do not "
                        "depend on it (docs/engine.md)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="send the runs to Dask distributed workers: a scheduler address "
                        "(tcp://host:8786) or local:N for N workers on this machine; also "
                        "HARNESS_CLUSTER (docs/parallel.md)")
    add_engine_option(p)
    p.set_defaults(func=cmd_run, fresh=False)


def job_count(text: str) -> int:
    """argparse type for --jobs: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return int(text)


def lag_threshold(text: str) -> Threshold:
    """argparse type for --retry-lagged: milliseconds above zero, or 'auto'."""
    if text == AUTO:
        return AUTO
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(
            f"expected milliseconds above 0 (e.g. 10) or '{AUTO}', got {text!r}")
    return value


def output_dir(exp: schema.Experiment, args: argparse.Namespace) -> Path:
    if args.output:
        return Path(args.output)
    return Path(exp.output + ("-quick" if args.quick else ""))


def load_executor() -> ModuleType:
    """The module with ``execute_run`` (imported late: it pulls in the kernel plumbing)."""
    from harness.experiment import execute
    return execute


def check_output(out: Path, key: str) -> None:
    """Refuse an output directory this process cannot create or write, before anything starts
    (the VM would otherwise boot first and the run end in a traceback). Probes by creating and
    removing a file in it (or its first missing component): as root, ``os.access`` says yes to
    ``/proc`` and read-only mounts alike. Leaves nothing behind."""
    def refuse(reason: str) -> HarnessError:
        return HarnessError(f"{key}: {out} is not writable: {reason}")

    path = out.absolute()
    missing: Optional[Path] = None
    while not path.exists():
        if path.is_symlink():
            raise refuse(f"{path} is a dangling symbolic link")
        missing, path = path, path.parent
    if not path.is_dir():
        raise refuse(f"{path} is a file, not a directory")
    try:
        if missing is not None:
            doing = f"cannot create {missing}"
            missing.mkdir()
            missing.rmdir()
        else:
            doing = f"cannot write in {path}"
            fd, probe = tempfile.mkstemp(prefix=".write-probe-", dir=path)
            os.close(fd)
            os.unlink(probe)
    except OSError as err:
        raise refuse(f"{doing}: {err.strerror or err}") from None


def describe(runs: List[Run], store: Store, retry_lagged: Optional[Threshold] = None
             ) -> List[str]:
    """Dry-run listing: one line per run with its status in the store ("lagged": it would be
    run again under ``--retry-lagged``)."""
    done = store.existing_ids()
    records = {i: store.load(i) for i in done}
    lagged = set(to_redo(list(records.values()), retry_lagged)) if retry_lagged else set()
    lines = []
    for run in runs:
        status = "pending"
        if run.run_id in records:
            status = "lagged" if run.run_id in lagged else records[run.run_id].get("status", "done")
        point = " ".join(f"{short_name(k)}={value_label(k, v, run.params, run.shared.get(k, ()))}"
                         for k, v in run.point.items())
        lines.append(f"{run.index:4d}  {run.run_id}  rep={run.repetition}  seed={run.seed:<10d} "
                     f"{status:8s} {point}")
    orphans = done - {r.run_id for r in runs}
    if orphans:
        lines.append(f"note: {len(orphans)} stored record(s) match no run of this file "
                     "(its parameters changed); a real run stops unless --fresh")
    return lines


def first_repetitions(exp: schema.Experiment, args: argparse.Namespace) -> Optional[int]:
    """``--repetitions K`` checked against the file: at most the repetitions it plans."""
    k: Optional[int] = args.repetitions
    planned = 1 if args.quick else exp.repetitions
    if k is not None and k > planned:
        raise HarnessError(f"--repetitions: {k} is more than the {planned} repetition(s) "
                           f"{args.file} plans; allowed 1-{planned}")
    return k


def cmd_run(args: argparse.Namespace) -> int:
    """Each file in turn (``run_one``), after every file was checked; stops at an interrupt.
    Exit status: the first file's that failed, else 0."""
    files: List[str] = args.files
    if len(files) > 1 and args.output:
        raise HarnessError(f"--output names one results directory: allowed with one file, got "
                           f"{len(files)} (each file writes to its own `output`)")
    if len(files) > 1:
        for f in files:  # bad input stops the queue before anything runs
            exp = schema.load(f)
            expand(exp, quick=args.quick)
            first_repetitions(exp, argparse.Namespace(**{**vars(args), "file": f}))
            check_output(output_dir(exp, args), "output")
    worst = 0
    for i, f in enumerate(files):
        if len(files) > 1:
            print(f"== {f} ({i + 1} of {len(files)})", file=sys.stderr)
        code = run_one(argparse.Namespace(**{**vars(args), "file": f}))
        if code == 130:
            return code
        worst = worst or code
    return worst


def run_one(args: argparse.Namespace) -> int:
    """One experiment file: its dry-run listing, or its runs."""
    exp = schema.load(args.file)
    runs = expand(exp, quick=args.quick)  # also checks every flow's nodes at every sweep point
    first = first_repetitions(exp, args)
    out = output_dir(exp, args)
    check_output(out, "--output" if args.output else "output")
    store = Store(out)
    if getattr(args, "check_determinism", False):
        return check_determinism(exp, runs)
    if args.dry_run:
        points = len({tuple(sorted(map(str, r.point.items()))) for r in runs})
        reps = 1 if args.quick else exp.repetitions
        from harness.experiment.progress import format_duration
        from harness.experiment.runner import SETUP_ESTIMATE
        stored = store.existing_ids()
        pending = [r for r in within_repetitions(runs, first) if r.run_id not in stored]
        estimate = sum(r.expected_seconds() + SETUP_ESTIMATE for r in pending)
        within = "" if first is None else f" in the first {first} repetition(s)"
        print(f"{exp.name}: {len(runs)} runs ({points} sweep points x {reps} repetitions) "
              f"-> {out}; {len(pending)} pending{within}, at least "
              f"{format_duration(estimate)}")
        for line in describe(runs, store, args.retry_lagged):
            print(line)
        return 0
    pool = make_pool(args)
    from harness.experiment.runner import run_sweep
    if pool is not None:
        result = run_sweep(exp, store, None, pool=pool, runs=runs, fresh=args.fresh,
                           retry_failed=args.retry_failed, retry_lagged=args.retry_lagged,
                           fail_fast=args.fail_fast, first_repetitions=first)
    else:
        module = load_executor()
        environment: Optional[Callable[[], dict]] = getattr(module, "environment", None)
        result = run_sweep(exp, store, module.execute_run, runs=runs, fresh=args.fresh,
                           retry_failed=args.retry_failed, retry_lagged=args.retry_lagged,
                           fail_fast=args.fail_fast, first_repetitions=first,
                           environment=environment)
    print(f"{exp.name}: {result.ok} ok, {len(result.failed)} failed, {result.skipped} already "
          f"stored, {result.remaining} not run -> {out}", file=sys.stderr)
    if result.interrupted:
        return 130
    if result.ok + result.skipped and args.report:
        summarize(out)
    return 1 if result.failed else 0


def make_pool(args: argparse.Namespace) -> Optional[RunPool]:
    """Where the runs execute: a Dask cluster (``--cluster``), several job runners on this
    host (one per guest, or natively ``--jobs`` above 1), or None: one after another here."""
    cluster = args.cluster or os.environ.get("HARNESS_CLUSTER")
    if cluster:
        if args.jobs is not None:
            raise HarnessError("--jobs and --cluster exclude each other: a cluster runs as many "
                               "runs at once as its workers have threads")
        from harness.parallel.cluster import ClusterPool
        return ClusterPool(cluster)
    jobs = args.jobs if args.jobs is not None else default_jobs()
    from harness.vm import dispatch
    if not dispatch.needs_vm() and jobs <= 1:
        return None
    from harness.parallel.local import LocalPool
    return LocalPool(jobs)  # with the uml engine one guest per run, even at --jobs 1


def default_jobs() -> int:
    """One run at a time natively (concurrent runs would share the host's CPU on the wall
    clock); in guests, one per host CPU (each guest is pinned to one, in virtual time)."""
    from harness.vm import dispatch
    if not dispatch.needs_vm():
        return 1
    from harness.vm.uml import host_cpus
    return len(host_cpus())


def summarize(out: Path) -> None:
    """The throughput table on the terminal, and the full report (tables + figures) on disk."""
    from harness.analysis.report import keys_ok, metric_table
    from harness.experiment.results import load_results
    from harness.study import write_report
    try:
        rs = load_results(out)
    except HarnessError:
        return  # nothing stored (e.g. the VM could not start): the error was printed already
    if not rs.ok:
        return
    if keys_ok(rs):
        print(f"\nthroughput (Mbit/s), {out}:")
        for row in metric_table(rs, "throughput", rs.sweep_keys):
            print("  " + row)
    report = write_report(out)
    print(f"\nreport: {report}  (figures beside it; `harness plot {out}` for more)")


def check_determinism(exp: schema.Experiment, runs: List[Run]) -> int:
    """The first run of the file twice, each in a fresh guest (stored nowhere): 0 when the
    records are byte-identical apart from ``timing``, 1 (with the keys that differ) when not."""
    from harness.parallel.jobs import JobRunner
    from harness.parallel.worker import Job
    from harness.vm import dispatch
    if not dispatch.needs_vm():
        raise HarnessError("--check-determinism: the native engine runs on the wall clock, "
                           "where reruns differ; allowed with --engine uml")
    if not runs:
        raise HarnessError(f"--check-determinism: {exp.name} has no runs")
    run = runs[0]
    texts = []
    for attempt in (1, 2):
        print(f"{exp.name}: run {run.run_id} ({run.label()}), pass {attempt} of 2 ...",
              file=sys.stderr, flush=True)
        runner = JobRunner(f"pass {attempt}", say=lambda text: None)
        try:
            record = runner.run(Job(exp.name, run))
        finally:
            runner.close()
        record.pop("timing", None)
        texts.append(json.dumps(record, sort_keys=True, indent=1))
    if texts[0] == texts[1]:
        print(f"{exp.name}: identical: run {run.run_id} gave the same record twice "
              f"({len(texts[0])} bytes, status {json.loads(texts[0])['status']})")
        return 0
    first, second = (json.loads(t) for t in texts)
    keys = sorted(k for k in set(first) | set(second) if first.get(k) != second.get(k))
    print(f"{exp.name}: NOT identical: run {run.run_id} differs in {', '.join(keys)}")
    return 1
