"""Paper 000, a test of one reading of claim 5 (RTS/CTS helps at 3-4 hops) on the medium's
link table, no run of its own: MAP's radios detected frames (and so sensed the medium busy)
only well above the noise floor, where the campus file has them lock on at -95 dBm, so more of
its path routers were hidden from each other and more hops open to a hidden router's frames,
the case the CTS protects.

For each detection threshold (``topology.rx_sensitivity``) and layout: whether the paper's own
link fact still holds (all 18 path links decode at 2 Mbit/s, ``map_links``), and per 3- and
4-hop path the hops a hidden path router can break (``map_links.exposed_hops``) and the
weakest hop's chance that a frame and its reverse both arrive at 5.5 Mbit/s. The reading
gains ground only if a threshold exposes more hops while the link fact holds.

Imports: the medium's link table (through the campus builder) and map_links.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from studies.p000_campus import map_links as L
from topologies import campus as C

#: Detection thresholds tried (dBm): the campus file's (None), then 3 to 10 dB above it.
THRESHOLDS: Tuple[Optional[float], ...] = (None, -92.0, -90.0, -88.0, -85.0)
LONG = tuple(p for p in L.PATHS if len(p) > 3)


@dataclass(frozen=True)
class Layout:
    """One layout at one threshold: the link fact, and per long path its exposed hops and
    weakest hop (df x dr at 5.5 Mbit/s)."""

    seed: int
    threshold: Optional[float]
    decode_2: bool
    exposed: Dict[str, int]
    weakest: Dict[str, float]


def _name(path: Sequence[int]) -> str:
    return "-".join(map(str, path))


def layout(seed: int, threshold: Optional[float], campus: Optional[C.Campus] = None) -> Layout:
    """The layout's link table with radios detecting from ``threshold`` dBm, judged."""
    place = C.with_sensitivity(campus or C.load_campus(), threshold)
    table = C.campus_links(place, seed, C.DATA_FRAME_BYTES)
    facts = {f.key: f.holds for f in L.link_facts(place, seed, table)}
    weakest = {_name(p): min(C.link_quality(table, C.router_name(a), C.router_name(b), 5.5)
                             for a, b in zip(p, p[1:])) for p in LONG}
    return Layout(seed, threshold, facts["decode_2"],
                  {_name(p): len(L.exposed_hops(table, p)) for p in LONG}, weakest)


def sweep(seeds: Sequence[int] = (1, 2, 3),
          thresholds: Sequence[Optional[float]] = THRESHOLDS) -> List[Layout]:
    return [layout(s, t) for s in seeds for t in thresholds]


def _label(threshold: Optional[float]) -> str:
    return "file's (-95)" if threshold is None else f"{threshold:g}"


def verdict(found: Sequence[Layout]) -> str:
    """Whether some threshold exposes more hops than the file's on a layout where the paper's
    link fact still holds there."""
    base = {f.seed: sum(f.exposed.values()) for f in found if f.threshold is None}
    gains = [f for f in found if f.threshold is not None and f.decode_2
             and sum(f.exposed.values()) > base.get(f.seed, 0)]
    if not gains:
        return ("**Verdict:** not explained: no threshold that keeps the paper's link fact "
                "exposes more hops than the campus file's (where one does, some path link no "
                "longer decodes at 2 Mbit/s); a higher threshold chiefly weakens the hops.")
    where = ", ".join(f"seed {f.seed} at {_label(f.threshold)} dBm" for f in gains)
    return (f"**Verdict:** more hops exposed with the link fact holding ({where}); the "
            "reading needs runs to say whether RTS/CTS then pays.")


def section_lines(found: Sequence[Layout]) -> List[str]:
    """The reading's part of the paper page."""
    if not found:
        return []
    paths = list(found[0].exposed)
    out = ["## A detection threshold above the noise floor (claim 5, a test of one reading, "
           "not the model)", "",
           "The campus file's radios lock onto a frame, and sense the medium busy, from -95 dBm "
           "(the 802.11b noise floor); real receivers detect from higher up. Per detection "
           "threshold (`topology.rx_sensitivity`): whether all 18 path links still decode at "
           "2 Mbit/s (seeds 1 / 2 / 3), and per 3- and 4-hop path of the default layout the "
           "hops a hidden router of the path can break (either direction) / the weakest hop's "
           "df x dr at 5.5 Mbit/s.", "",
           "| threshold (dBm) | links decode at 2 Mbit/s | " + " | ".join(paths) + " |",
           "|---|---|" + "---|" * len(paths)]
    for t in sorted({f.threshold for f in found}, key=lambda v: -999 if v is None else v):
        rows = {f.seed: f for f in found if f.threshold == t}
        facts = " / ".join("yes" if rows[s].decode_2 else "no" for s in sorted(rows))
        d = rows.get(1) or next(iter(rows.values()))
        cells = " | ".join(f"{d.exposed[p]} / {d.weakest[p]:.2f}" for p in paths)
        out.append(f"| {_label(t)} | {facts} | {cells} |")
    return out + ["", verdict(found), ""]
