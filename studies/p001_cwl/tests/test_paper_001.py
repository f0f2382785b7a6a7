"""Study 001's claim table and the adaptive policy's table against the paper's."""
from __future__ import annotations

from policies.adaptive_window import cwl_for_rthc
from studies.p001_cwl import paper as paper001


def test_cwl_table_is_the_papers():
    # paper 001 §IV: N <= 4: 2, <= 8: 1, <= 12: 2, <= 20: 3, <= 26: 4, <= 30: 5
    got = [cwl_for_rthc(n) for n in range(1, 31)]
    assert got[:4] == [2] * 4 and got[4:8] == [1] * 4 and got[8:12] == [2] * 4
    assert got[12:20] == [3] * 8 and got[20:26] == [4] * 6 and got[26:30] == [5] * 4
    assert [paper001.TABLE_BY_HOPS[h] for h in range(1, 16)] == \
        [2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5]   # papers.md 001.3 mapping




def test_every_claim_says_where_in_the_paper_it_stands():
    assert paper001.CLAIMS and all(c.source for c in paper001.CLAIMS)
