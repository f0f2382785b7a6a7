"""Paper 002's six claims of 002.4 judged from synthetic records (the judging and the
section, not a measurement)."""
from __future__ import annotations

from studies.p002_mesh_retry import mesh_claims as C
from studies.p002_mesh_retry import paper as P

from .test_mesh_fail_avg import run
from .test_report_002 import record, sweep_records


def plateau_records():
    """Every module rises from R = 1 to R = 7 and stays flat to 31 (two runs a point, 1 %
    apart): the shape our sweep measured."""
    recs, i = [], 0
    for hops, base in ((3, 7.0), (5, 4.0)):
        for module in P.MODULES:
            for limit in P.RETRY_LIMITS:
                level = base * min(1.0, 0.2 + 0.8 * (limit - 1) / 6)
                for k in range(2):
                    recs.append(record(i, hops=hops, module=module, limit=limit,
                                       mbps=level * (1 + 0.01 * k)))
                    i += 1
    return recs


def test_a_curve_declines_only_beyond_its_peaks_own_spread():
    assert C.declines({1: [1.0, 1.0], 7: [3.0, 3.0], 31: [2.0, 2.0]})
    assert not C.declines({1: [1.0, 1.0], 7: [3.0, 3.3], 31: [2.9, 2.9]})  # within 10 %
    assert not C.declines({1: [1.0], 31: [3.0]})                           # peak at the end
    assert C.curve_text({1: [1.0], 31: [3.0]}) == "peak at the largest limit, R = 31"


def test_a_sweep_shaped_like_the_papers_holds_every_claim_and_needs_no_why():
    judged = C.judged_claims(sweep_records(peak3=9, peak5=5))
    assert [j.number for j in judged] == [1, 2, 3, 4, 5, 6]
    assert [j.verdict.split(":")[0].split(" for")[0] for j in judged] == ["holds"] * 6
    assert "12 of 12 concave; argmax in 5-9 12 of 12" in judged[0].ours
    assert not judged[0].why and not judged[2].why
    assert judged[4].ours.startswith("236.8 ms; 60.8 ms; worst from R = 7 / 7")


def test_a_plateau_differs_and_the_why_reads_the_readings():
    fail_avg = [run(i, 5, limit, mbps, "fail-avg-3.12") for i, (limit, mbps) in enumerate(
        [(1, 2.0), (3, 4.4), (7, 4.1), (31, 4.0), (1, 2.0), (3, 4.4), (7, 4.1), (31, 4.0)])]
    judged = C.judged_claims(plateau_records(), fail_avg=fail_avg, modules=fail_avg)
    one, two, three = judged[0], judged[1], judged[2]
    assert one.verdict == "differs: a rise to R = 7, then a plateau to the largest limit " \
        "(no decline)"
    assert "0 of 12 peaks out of their runs' spread" in one.ours
    assert "5 hops: peak at R = 3, R = 31 -9.1% (a decline)" in one.why
    assert "peak at R = 3. None of them with the peak inside 5-9" in one.why
    assert two.verdict == "holds" and two.ours.startswith("12 of 12; R = 7 carries 5.0-5.0x")
    assert three.verdict == "differs: no decline at either length"
    assert judged[3].verdict.startswith("holds for the shape we measure")
    assert judged[5].ours.startswith("42 of 42 (module, limit) pairs")


def test_the_section_is_a_table_of_six_claims_with_bullets_where_we_differ():
    lines = C.section(plateau_records(), "paper002_retry_sweep")
    assert lines[0] == "## Each claim of 002.4"
    assert sum(line.startswith("| ") and line[2].isdigit() for line in lines) == 6
    assert [line[:14] for line in lines if line.startswith("- **")] == \
        ["- **Claim 1.**", "- **Claim 3.**", "- **Claim 4.**"]
    assert "None of them brings a decline" in next(x for x in lines if "Claim 1." in x)
    assert C.section([], "x") == []


def test_a_decline_on_some_curves_only_is_partly_and_the_why_counts_them():
    recs = [r for r in plateau_records() if r["point"]["topology.hops"] == 3] \
        + [r for r in sweep_records(peak5=5) if r["point"]["topology.hops"] == 5]
    one, _two, three = C.judged_claims(recs)[:3]
    assert one.verdict == "partly: a decline on 6 of 12"
    assert one.why.startswith("6 of 12 curves rise from R = 1 to R = ")
    assert three.verdict == "partly"
    assert three.why.startswith("Only 6 of 6 5-hop and 0 of 6 3-hop curves decline")
