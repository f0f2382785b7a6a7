"""One run of a sweep, by itself: ``python3 -m harness.parallel.worker`` with a job on standard
input (``encode(job)``: base64 of its JSON, so that it passes any shell unquoted).

It executes the run here (a host or guest that can run the emulation), prints the run's
record as one line after ``RECORD_MARKER`` on standard output and exits 0; everything else it
prints goes to standard error. Ctrl-C or SIGTERM tears the run down and prints no record (exit
130): an interrupted run is not stored, and the resumed sweep runs it again.
"""
from __future__ import annotations

import argparse
import base64
import json
import sys
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional

from harness.errors import HarnessError
from harness.experiment.runner import base_environment, execute_one, sigterm_as_interrupt
from harness.experiment.sweep import Run

#: The line of standard output that carries the record starts with this.
RECORD_MARKER = "HARNESS-RECORD "


@dataclass(frozen=True)
class Job:
    """What a worker needs to execute a run: its experiment's name and the run itself (its
    parameters are fully resolved, so no experiment file travels)."""

    experiment: str
    run: Run

    def to_json(self) -> str:
        return json.dumps({"experiment": self.experiment, "run": asdict(self.run)})

    @staticmethod
    def from_json(text: str) -> Job:
        data = json.loads(text)
        run = dict(data["run"])
        run["shared"] = {k: tuple(tuple(item) for item in v)
                         for k, v in (run.get("shared") or {}).items()}
        return Job(data["experiment"], Run(**run))


def encode(job: Job) -> str:
    return base64.b64encode(job.to_json().encode()).decode()


def decode(text: str) -> Job:
    return Job.from_json(base64.b64decode(text).decode())


def run_here(job: Job) -> Dict[str, Any]:
    """Execute the job's run in this process; its record."""
    from harness.experiment import execute
    env = base_environment()
    env.update(execute.environment())
    return execute_one(job.experiment, job.run, execute.execute_run, env)


def parse_record(stdout: str) -> Optional[Dict[str, Any]]:
    """The record a worker printed, or None when it printed none."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(RECORD_MARKER):
            record: Dict[str, Any] = json.loads(line[len(RECORD_MARKER):])
            return record
    return None


def serve_one(job_text: str) -> int:
    """Run the encoded job, print its record after RECORD_MARKER; the exit code (0, 2 for a
    bad job or a harness error, 130 when interrupted: no record)."""
    job: Optional[Job] = None
    try:
        job = decode(job_text)
        with sigterm_as_interrupt():
            record = run_here(job)
    except (ValueError, KeyError, TypeError) as err:
        print(f"harness worker: error: the job on standard input is not valid: {err}",
              file=sys.stderr)
        return 2
    except HarnessError as err:
        print(f"harness worker: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"harness worker: run {job.run.run_id if job else '?'} interrupted; cleaned up",
              file=sys.stderr)
        return 130
    sys.stdout.write(RECORD_MARKER + json.dumps(record) + "\n")
    sys.stdout.flush()
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m harness.parallel.worker",
                                     description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    return serve_one(sys.stdin.read())


if __name__ == "__main__":
    sys.exit(main())
