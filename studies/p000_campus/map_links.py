"""Paper 000's qualitative link facts, judged on the campus's own link table.

Paper 000 gives no coordinates or link qualities for the Purdue MAP testbed, only facts about
its links (papers' section "Purdue MAP topology"). The campus builder's layout
(``topologies/purdue_map.yaml``) is a stated assumption; these are the facts it must produce
from its geometry and the medium's propagation model, read from the medium's link table
(``harness.medium.link_table``: mean power, sensing and per-rate delivery of one frame, as
``mediumd`` computes them). Each fact has a precise criterion, fixed before the layout was
judged (docs/campus.md):

- every link of the 14 paths decodes at 2 Mbit/s: one full-size frame (1538 bytes) gets
  through at least half of the time in each direction (so 11 attempts lose < 0.05 %);
- among the 1-hop pairs, 22-13 is the shortest, 4-19 and 5-28 the two longest (antenna to
  antenna);
- 23-1 and 5-28 can hold 11 Mbit/s: at 11 Mbit/s they would carry more than at 5.5 Mbit/s
  (delivery x one sender's analytic goodput, both ways): the rate minstrel then chooses;
- every 3- and 4-hop path has hidden terminals: two of its routers two hops apart hear each
  other below the carrier-sense threshold, both ways;
- every 3- and 4-hop path is weak: one of its hops loses more than 10 % of 11 Mbit/s frames, or
  one of its routers is exposed to a hidden one: a router two hops from a hop's sender, which
  the sender cannot sense, reaches the hop's receiver within the capture threshold of the
  sender's own signal, so their overlapping frames are lost (in either direction of the flow:
  TCP's ACKs cross the path backwards).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from harness.medium import analytic
from harness.medium.link_table import LinkTable
from topologies import campus as C

#: The paper's 14 paths, source first (papers' "Hop counts and paths").
PATHS: Tuple[Tuple[int, ...], ...] = (
    (22, 13), (23, 1), (4, 19), (5, 28),
    (1, 23, 16), (28, 29, 34), (37, 25, 2), (5, 3, 23),
    (1, 16, 29, 30), (1, 16, 13, 22), (1, 23, 14, 25), (37, 25, 14, 23),
    (1, 23, 16, 13, 22), (1, 16, 13, 29, 30),
)
#: Single-attempt delivery of a full frame at 2 Mbit/s that counts as "decodes".
DECODES = 0.5
#: A hop that loses more than this share of 11 Mbit/s frames is lossy.
LOSSY_AT_11 = 0.9


@dataclass
class Fact:
    """One qualitative fact, its verdict and the numbers it was judged on."""

    key: str
    what: str
    holds: bool
    detail: str


def path_links(paths: Sequence[Sequence[int]] = PATHS) -> List[Tuple[int, int]]:
    """The 18 undirected links the paths use, sorted."""
    return sorted({tuple(sorted(p[i:i + 2])) for p in paths for i in range(len(p) - 1)})  # type: ignore[misc]


def _n(rid: int) -> str:
    return C.router_name(rid)


def holds_11(table: LinkTable, a: int, b: int) -> Tuple[bool, float]:
    """Whether 11 Mbit/s carries more than 5.5 Mbit/s on a-b (both ways); the worse ratio."""
    g11 = analytic.single_sender_goodput_mbps("b", 11, 1500)
    g55 = analytic.single_sender_goodput_mbps("b", 5.5, 1500)
    ratios = []
    for x, y in ((a, b), (b, a)):
        p55 = table.delivery(_n(x), _n(y), 5.5)
        ratios.append(table.delivery(_n(x), _n(y), 11) * g11 / (p55 * g55) if p55 else 0.0)
    return min(ratios) > 1.0, min(ratios)


def hidden(table: LinkTable, a: int, b: int) -> bool:
    """Routers a and b hear each other below their carrier-sense thresholds, both ways."""
    return C.hidden(table, _n(a), _n(b))


def exposed_hops(table: LinkTable, path: Sequence[int]) -> List[str]:
    """Hops whose receiver a hidden router of the path can hit: for a hop s -> r (either
    direction along the path), a router h two hops from s and hidden from it whose power at r
    is within the capture threshold of s's."""
    out = []
    for s, r in C.path_hops(path):
        i = path.index(s)
        for h in (path[j] for j in (i - 2, i + 2) if 0 <= j < len(path)):
            if h == r or not hidden(table, s, h) or not C.breaks(table, _n(h), _n(s), _n(r)):
                continue
            harm = table.get(_n(h), _n(r)).mean_dbm - table.get(_n(s), _n(r)).mean_dbm
            out.append(f"{s}->{r} hit by {h} ({harm:+.1f} dB)")
    return out


def distance(campus: C.Campus, a: int, b: int) -> float:
    return math.dist(campus.position(a), campus.position(b))


def link_facts(campus: Optional[C.Campus] = None, shadowing_seed: Optional[int] = None,
               table: Optional[LinkTable] = None) -> List[Fact]:
    """Every fact of the module docstring on the campus (default: the paper's layout) with the
    given shadowing seed (None: the campus file's), read from ``table`` when given (the same
    campus's link table under other medium settings)."""
    campus = campus or C.load_campus(C.DEFAULT_CAMPUS)
    table = table or C.campus_links(campus, shadowing_seed)
    out: List[Fact] = []
    worst = []
    for a, b in path_links():
        ratio = min(table.delivery(_n(a), _n(b), 2), table.delivery(_n(b), _n(a), 2))
        worst.append((ratio, f"{a}-{b}"))
    bad = [f"{name} {ratio:.2f}" for ratio, name in worst if ratio < DECODES]
    low = min(worst)
    out.append(Fact("decode_2", "all 18 path links decode at 2 Mbit/s", not bad,
                    "failing: " + ", ".join(bad) if bad else
                    f"weakest {low[1]} delivers {low[0]:.2f} of full frames per attempt"))
    one_hop = [p for p in PATHS if len(p) == 2]
    dist = {p: distance(campus, *p) for p in one_hop}
    order = sorted(dist, key=dist.get)  # type: ignore[arg-type]
    text = ", ".join(f"{a}-{b} {dist[(a, b)]:.0f} m" for a, b in order)
    out.append(Fact("shortest_22_13", "22-13 is the shortest 1-hop pair", order[0] == (22, 13),
                    text))
    out.append(Fact("longest_4_19_5_28", "4-19 and 5-28 are the longest 1-hop pairs",
                    set(order[-2:]) == {(4, 19), (5, 28)}, text))
    for a, b in ((23, 1), (5, 28)):
        ok, ratio = holds_11(table, a, b)
        out.append(Fact(f"holds_11_{a}_{b}", f"{a}-{b} can hold 11 Mbit/s", ok,
                        f"11 Mbit/s carries {ratio:.2f} x what 5.5 Mbit/s carries (worse way)"))
    long_paths = [p for p in PATHS if len(p) >= 4]
    without = []
    pairs_text = []
    for p in long_paths:
        pairs = [(p[i], p[i + 2]) for i in range(len(p) - 2) if hidden(table, p[i], p[i + 2])]
        pairs_text.append("-".join(map(str, p)) + ": " + (", ".join(f"{a}/{b}" for a, b in pairs)
                                                          or "none"))
        if not pairs:
            without.append("-".join(map(str, p)))
    out.append(Fact("hidden", "every 3- and 4-hop path has a hidden pair two hops apart",
                    not without, "; ".join(pairs_text)))
    weak_text = []
    not_weak = []
    for p in long_paths:
        lossy = [f"{a}-{b}" for a, b in zip(p, p[1:])
                 if min(table.delivery(_n(a), _n(b), 11), table.delivery(_n(b), _n(a), 11))
                 < LOSSY_AT_11]
        exposed = exposed_hops(table, p)
        why = ([f"lossy at 11: {', '.join(lossy)}"] if lossy else []) + exposed[:2]
        weak_text.append("-".join(map(str, p)) + ": " + ("; ".join(why) or "none"))
        if not why:
            not_weak.append("-".join(map(str, p)))
    out.append(Fact("weak", "every 3- and 4-hop path is weak (a lossy or an exposed hop)",
                    not not_weak, " | ".join(weak_text)))
    return out
