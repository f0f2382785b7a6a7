"""The paper's statements about MAP's links, held by the campus builder's default layout
(studies/p000_campus/map_links.py states each with its criterion)."""
from __future__ import annotations

import pytest

from studies.p000_campus import map_links
from topologies import campus as C

FACTS = {f.key: f for f in map_links.link_facts()}


@pytest.mark.parametrize("key", ["decode_2", "shortest_22_13", "longest_4_19_5_28",
                                 "holds_11_23_1", "holds_11_5_28", "hidden", "weak"])
def test_paper_link_fact_holds_on_the_default_layout(key):
    fact = FACTS[key]
    print(f"{fact.what}: {fact.detail}")
    assert fact.holds, f"{fact.what}: {fact.detail}"


def test_every_fact_is_checked():
    assert set(FACTS) == {"decode_2", "shortest_22_13", "longest_4_19_5_28", "holds_11_23_1",
                          "holds_11_5_28", "hidden", "weak"}


def test_the_paths_use_the_18_links_of_the_paper():
    assert len(map_links.path_links()) == 18
    campus = C.load_campus()
    assert sorted(tuple(p) for p in campus.paths) == sorted(map_links.PATHS)


