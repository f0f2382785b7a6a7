"""The study's experiment files validate and plan the paper's points."""
from __future__ import annotations

from pathlib import Path

from harness.experiment import schema


def test_the_paper_files_validate_and_plan_the_papers_points():
    from harness.experiment.sweep import expand
    papers = Path(__file__).resolve().parents[1] / "experiments"
    runs = {f.stem: expand(schema.load(f)) for f in sorted(papers.glob("002_*.yaml"))}
    assert len(runs["002_retry_sweep"]) == 2 * 6 * 7 * 10
    assert len(runs["002_retry_sweep_reduced"]) == 2 * 6 * 7 * 2
    full = {(r.params["topology"]["hops"], r.params["flows"][0]["congestion"],
             r.params["policy"]["mac"]["retry_limit"]) for r in runs["002_retry_sweep"]}
    assert full == {(h, m, x) for h in (3, 5)
                    for m in ("cubic", "bic", "vegas", "veno", "westwood", "illinois")
                    for x in (1, 3, 5, 7, 9, 16, 31)}
    assert all(r.params["flows"][0]["duration"] == 100 for r in runs["002_retry_sweep"])
    assert all(r.params["policy"]["mesh_path"] for rs in runs.values() for r in rs)
