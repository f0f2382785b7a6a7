"""Each study's page is what its committed records give: regenerated from them, word for word.

The page's prose, tables and verdicts are checked here as a whole (a change that moves a
sentence or a number must regenerate the page on purpose: ``harness report studies/NAME``),
not sentence by sentence in the tests. The record files are copied to a temporary
checkout-like tree, so the experiments' reports and figures are written there and the links
come out the same.
"""
from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest

from harness.study import page_records, studies, study_keys, write_report
from harness.study.page import write_summary

KEYS = study_keys()


def test_there_are_studies_to_check():
    assert len(KEYS) >= 5


@pytest.mark.parametrize("key", KEYS)
def test_the_page_regenerates_from_the_records(key, tmp_path):
    from harness.experiment.results import load_results
    folder = Path(str(importlib.import_module(studies()[key]).__file__)).parent
    copy = tmp_path / "studies" / folder.name
    shutil.copytree(folder / "records", copy / "records")
    sets = []
    for records in page_records(key):
        write_report(copy / "records" / records.name)
        sets.append(load_results(copy / "records" / records.name))
    page = write_summary(sets, copy / "report.md")
    committed = (folder / "report.md").read_text().splitlines()
    regenerated = page.read_text().splitlines()
    differ = [f"line {i + 1}:\n  committed:   {a}\n  regenerated: {b}"
              for i, (a, b) in enumerate(zip(committed, regenerated)) if a != b]
    assert not differ and len(committed) == len(regenerated), (
        f"{folder / 'report.md'} is not what its records give ({len(differ)} lines differ, "
        f"{len(committed)} against {len(regenerated)} lines); regenerate it with "
        f"`harness report {folder.relative_to(folder.parents[1])}`:\n" + "\n".join(differ[:5]))
    assert sorted(p.name for p in (copy / "figures").glob("*")) == \
        sorted(p.name for p in (folder / "figures").glob("*"))
