"""Paper 002's sweep claims on the edited mac80211 build, every module, from synthetic records
(the reader and the section, not a measurement)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from studies.p002_mesh_retry import mesh_fail_avg as F
from studies.p002_mesh_retry import mesh_fail_avg_modules as M
from studies.p002_mesh_retry import paper as P

from .test_report_002 import peaked, record


def runs(experiment: str, build: Optional[str], peak5: int, start: int
         ) -> List[Dict[str, Any]]:
    """Every module at 3 and 5 hops, two runs a limit: concave, the 3-hop peak at 7 and the
    5-hop peak at ``peak5``."""
    out, i = [], start
    for hops in (3, 5):
        for module in P.MODULES:
            for limit in P.RETRY_LIMITS:
                for k in range(2):
                    rec = record(i, hops=hops, module=module, limit=limit, seconds=30,
                                 mbps=peaked(limit, hops, 7 if hops == 3 else peak5)
                                 * (1 + 0.001 * k))
                    rec["experiment"] = experiment
                    if build:
                        rec["params"]["policy"]["mac80211"] = build
                    out.append(rec)
                    i += 1
    return out


def test_the_section_judges_each_build_with_the_sweeps_criteria():
    stock = runs(F.BESIDE, None, 16, 0)
    edited = runs(M.NAME, "fail-avg-3.12", 3, 10_000)
    lines = M.section(stock + edited)
    assert lines[0] == ("## Linux 3.12's link-failure average, every module "
                        "(a test of one reading)")
    five = lines[lines.index("5 hops (mean Mbit/s per retry limit):") + 4:][:12]
    assert [row.split(" | ")[:2] for row in five[:2]] == [
        ["| cubic", "6.1 (stock)"], ["| cubic", "fail-avg-3.12 (edited)"]]
    assert five[1].split(" | ")[9:11] == ["3", "2"]      # argmax, runs a point
    window = lines[lines.index("5 hops, what the small limit does to the sender's window:") + 4]
    assert window == "| cubic | 6.1 (stock) | 0.0, - | 0.0, - |"   # no drops, no socket samples
    claims = {row.split(" | ")[0]: row for row in lines if row.startswith("| 5 hops: decline")}
    row = claims["| 5 hops: decline after 5-7 retries (argmax <= 7)"]
    assert "0 of 6; argmax <= 7: **differs**" in row.split(" | ")[2]       # stock
    assert "6 of 6; argmax <= 7: **agrees**" in row.split(" | ")[3]        # edited build
    verdict = next(line for line in lines if line.startswith("**Verdict:**"))
    assert "agree on the edited build only: " in verdict
    assert "5 hops: decline after 5-7 retries (argmax <= 7)" in verdict


def test_nothing_to_read_without_the_files_runs():
    assert M.section(runs(F.BESIDE, None, 16, 0)) == []
