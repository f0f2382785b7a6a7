"""Reports of experiments outside any study, and numbers read from records (synthetic records)."""
from __future__ import annotations

import pytest

from harness.experiment.results import load_results
from harness.study import study_section as section
from harness.testing.records import chain_record as record
from harness.testing.records import store_records as store
from harness.testing.records import with_links


def test_other_experiments_get_no_paper_section(tmp_path):
    root = store(tmp_path / "o", "quick_chain", [record(0, {"topology.hops": 1}, hops=1, pps=1)])
    assert section(load_results(root), root / "report.md") == ""


def test_attempt_success_and_retry_drops_sum_the_links():
    from harness.analysis import records as A
    rec = with_links(record(1, {}, hops=3, pps=30.0), 1000, 930, 3)
    assert A.attempt_success(rec) == pytest.approx(0.93) and A.retry_drops(rec) == 3.0
    bare = record(2, {}, hops=3, pps=30.0)
    assert A.attempt_success(bare) is None and A.retry_drops(bare) is None
    assert A.attempt_success(dict(rec, status="failed")) is None


