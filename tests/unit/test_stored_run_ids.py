"""Every committed run record keeps its id under the current code.

A run's id and seed are hashes of its fully resolved parameters, so a parameter added to the
schema with a value in every run (even null) would change every id: committed archives would
no longer resume ("records that match no run") and reruns would get other seeds. New
parameters are declared ``omit_default`` instead; this test fails when one is not.
"""
from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

from harness.experiment import archive, schema
from harness.experiment.sweep import expand
from harness.paths import code_root

#: The committed records: every experiment of the labs' and the studies' record files
#: (results-archive/labs/*.jsonl.xz, studies/<study>/records/*.jsonl.xz), as FOLDER/NAME.
EXPERIMENTS: List[Path] = sorted(
    path.parent / name for pattern in ("results-archive/*/*", "studies/*/records/*")
    for path in code_root().glob(pattern + archive.SUFFIX) for name in archive.read_file(path))


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stored_records_match_the_runs_the_code_plans(experiment: Path):
    entry = archive.entry(experiment)
    planned = {run.run_id for run in expand(schema.loads(entry["yaml"], source=experiment))}
    stored = [record["run_id"] for record in entry["runs"]]
    unmatched = [run_id for run_id in stored if run_id not in planned]
    assert not unmatched, f"{len(unmatched)} of {len(stored)} stored runs have other ids now"


def test_there_are_archives_to_check():
    assert len(EXPERIMENTS) > 10
