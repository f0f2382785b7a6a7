"""Paper 000's sensitivity run on lossier hops (studies/p000_campus/experiments/000_fading.yaml): the 3- and
4-hop paths of the default layout under per-frame fading of several spreads, read as the
quantities of claims 3 and 5-7 per spread, beside what the medium's link table says each
spread does to a hop. It tests one reading of why our long paths differ from MAP's (MAP's
hops lost more frames per attempt); it is not the model.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_variants as V

RATE = 5.5


def filed_sigma() -> float:
    """The default campus file's per-frame fading spread (dB): records that do not set
    ``topology.fading_sigma`` ran with it."""
    from topologies.campus import load_campus
    return float(load_campus().propagation.get("fading_sigma") or 0.0)


FILED_SIGMA = filed_sigma()


def sigma_of(rec: Mapping[str, Any]) -> float:
    value = A.param(rec, "topology.fading_sigma")
    return FILED_SIGMA if value is None else float(value)


#: The condition this run varies (``map_variants``).
FADING = V.Condition(sigma_of, "fading (dB)", lambda s: f"fading {s:g} dB", FILED_SIGMA, "dB",
                     "lossier hops")


def grids(records: Sequence[Mapping[str, Any]]) -> Dict[float, M.Grid]:
    """One grid per fading spread (ok campus records only, as ``Grid.of`` reads them)."""
    return V.grids(records, FADING)


def table_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    return V.table_lines(records, FADING)


def claim_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    return V.claim_lines(records, FADING)


def verdict_line(records: Sequence[Mapping[str, Any]]) -> str:
    return V.verdict_line(records, FADING)


def link_lines(paths: Sequence[str], sigmas: Sequence[float], seed: int = 1) -> List[str]:
    """What each spread does to the paths' hops in the medium's link table: the weakest hop's
    chance that one full-size 5.5 Mbit/s frame gets through per attempt (the worse direction),
    and the mean over the path's hops."""
    import dataclasses

    from topologies import campus as C
    place = C.load_campus()
    tables = {s: C.campus_links(dataclasses.replace(place, propagation={
        **place.propagation, "fading": "lognormal", "fading_sigma": s}), seed) for s in sigmas}
    out = ["| path | " + " | ".join(f"fading {s:g} dB: weakest / mean hop" for s in sigmas) + " |",
           "|---|" + "---|" * len(sigmas)]
    for path in paths:
        names = [C.router_name(int(x)) for x in path.split("-")]
        cells = []
        for s in sigmas:
            t = tables[s]
            hops = [min(t.delivery(a, b, RATE), t.delivery(b, a, RATE))
                    for a, b in zip(names, names[1:])]
            cells.append(f"{min(hops):.2f} / {sum(hops) / len(hops):.2f}")
        out.append(f"| {path} | " + " | ".join(cells) + " |")
    return out


def section_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The sensitivity run's part of a report or of the paper page."""
    ok = [r for r in records if r.get("status") == "ok"]
    if not ok:
        return ["No run of the sensitivity sweep is stored yet.", ""]
    sigmas = sorted({sigma_of(r) for r in ok})
    paths = sorted({str(A.param(r, "topology.path")) for r in ok}, key=lambda p: (M.hops_of(p), p))
    return ["Per-frame log-normal fading raised from the campus file's 2 dB, at 5.5 Mbit/s, the "
            "default layout (shadowing seed 1); each link's mean power is unchanged. RTS/CTS "
            "on over off reads as claim 5 does (3 hops: means over the windows; 4 hops: best "
            "averages); windows measured: "
            + ", ".join(sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok}))
            + ".", "", "What each spread does to the hops (the medium's link table, one "
            "1538-byte frame per attempt at 5.5 Mbit/s, the worse direction):", ""] \
        + link_lines(paths, sigmas) + ["", "What TCP got:", ""] + table_lines(ok) \
        + ["", "The claims that differ on the default layout, judged per spread (criteria as "
           "in the grid's, restricted to these paths and rate):", ""] + claim_lines(ok) \
        + ["", verdict_line(ok), ""]
