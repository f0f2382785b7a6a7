"""Every committed run record keeps its id under the current code.

A run's id and seed are hashes of its fully resolved parameters, so a parameter added to the
schema with a value in every run (even null) would change every id: committed archives would
no longer resume ("records that match no run") and reruns would get other seeds. New
parameters are declared ``omit_default`` instead; this test fails when one is not.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import List

import pytest

from harness.experiment import schema
from harness.experiment.sweep import expand
from harness.paths import code_root

#: The committed records: the labs' and every study's (studies/<study>/records/<experiment>).
ARCHIVES: List[Path] = sorted(p.parent for pattern in ("results-archive/*/*/packed.json",
                                                        "studies/*/records/*/packed.json")
                              for p in code_root().glob(pattern))


@pytest.mark.parametrize("archive", ARCHIVES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stored_records_match_the_runs_the_code_plans(archive: Path):
    planned = {run.run_id for run in expand(schema.load(archive / "experiment.yaml"))}
    with gzip.open(archive / "runs.jsonl.gz", "rt") as f:
        stored = [json.loads(line)["run_id"] for line in f]
    unmatched = [run_id for run_id in stored if run_id not in planned]
    assert not unmatched, f"{len(unmatched)} of {len(stored)} stored runs have other ids now"


def test_there_are_archives_to_check():
    assert len(ARCHIVES) > 10
