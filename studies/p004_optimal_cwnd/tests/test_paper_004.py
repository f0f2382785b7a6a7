"""Study 004's claim table and the paper's arithmetic beside ours."""
from __future__ import annotations

import pytest

from harness.study.claims import Row, comparison_table
from studies.p004_optimal_cwnd import paper as paper004


def test_comparison_table_lists_every_claim_with_source():
    rows = [Row(c) for c in paper004.CLAIMS]
    lines = comparison_table(rows)
    assert len(lines) == len(paper004.CLAIMS) + 2
    assert any("Table 1" in l and "4212" in l for l in lines)
    assert all(c.source for c in paper004.CLAIMS)


def test_paper004_arithmetic_rows():
    assert paper004.capture_x() == pytest.approx(15.96, abs=0.01)   # printed 15.82
    air = paper004.our_airtimes()
    # RTS 20 B, CTS 14 B, ACK 14 B at 1 Mbit/s, each with a 192 us PLCP, plus 3 SIFS
    assert air["overhead"] == (192 + 160) + 2 * (192 + 112) + 30
    assert air["ack"] / air["data"] > 443 / 1170


