"""Paper 000's claim 12, measured (studies/p000_campus/experiments/000_rate11.yaml): the authors left
11 Mbit/s out of their grid because on MAP it "gave very low throughput for paths longer than
1 hop" (§3). Neither grid has a fixed 11 Mbit/s; this run sets each of the 14 paths at 11
and at 5.5 Mbit/s on the three layouts, and reads "very low" as less than half of what the
same path carries one rate lower: the claim holds on a layout when the median of that ratio
over its paths longer than 1 hop is below ``VERY_LOW``.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``).
"""
from __future__ import annotations

import statistics as stats
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M

RATE = 11.0
BASE = 5.5
#: "Very low": below this share of the same path's throughput at ``BASE``.
VERY_LOW = 0.5
CLAIM = "11 Mbit/s gives very low throughput beyond 1 hop"
CRITERION = (f"median over the paths beyond 1 hop of (kbit/s at {RATE:g}) / (kbit/s at "
             f"{BASE:g}) below {VERY_LOW:g}")

#: (seed, path, rate) -> what the runs measured (rate: Mbit/s, or "auto")
Key = Tuple[int, str, Any]


def _seed(rec: Mapping[str, Any]) -> int:
    value = A.param(rec, "topology.shadowing_seed")
    return 1 if value is None else int(value)


def broken_path(rec: Mapping[str, Any]) -> bool:
    """A run that failed because the path carried none of the pings sent along it before the
    flow (``warm_arp``): at this rate the path carries nothing, the point's outcome, not a
    fault of the run."""
    error = str(rec.get("error") or "")
    return rec.get("status") != "ok" and error.startswith("warm_arp:") \
        and "the path is broken before any flow" in error


def measured(records: Sequence[Mapping[str, Any]], what: str = "kbps",
             rates: Sequence[Any] = (BASE, RATE)) -> Dict[Key, float]:
    """(seed, path, rate) -> mean over runs of the throughput (kbit/s; a ``broken_path`` run
    counts as 0), the share of the medium's attempts received (``attempts``) or the
    retry-limit drops (``drops``); runs at ``rates`` only (Mbit/s, or "auto")."""
    read = {"kbps": A.throughput_kbps, "attempts": A.attempt_success,
            "drops": A.retry_drops}[what]
    acc: Dict[Key, List[float]] = {}
    for rec in records:
        rate = A.param(rec, "topology.rate")
        broken = what == "kbps" and broken_path(rec)
        if rate is None:
            continue
        rate = rate if rate == "auto" else float(rate)
        if (rec.get("status") != "ok" and not broken) or rate not in rates:
            continue
        value = 0.0 if broken else read(rec)
        if value is not None:
            key = (_seed(rec), str(A.param(rec, "topology.path")), rate)
            acc.setdefault(key, []).append(value)
    return {k: stats.mean(v) for k, v in acc.items()}


def has_eleven(records: Sequence[Mapping[str, Any]]) -> bool:
    """Whether any run measured the fixed 11 Mbit/s rate (ok, or ``broken_path``): the
    records of this run."""
    return any((rec.get("status") == "ok" or broken_path(rec))
               and A.param(rec, "topology.rate") not in (None, "auto")
               and float(A.param(rec, "topology.rate")) == RATE for rec in records)


def seeds(records: Sequence[Mapping[str, Any]]) -> List[int]:
    return sorted({k[0] for k in measured(records)})


def ratios(records: Sequence[Mapping[str, Any]], seed: int) -> Dict[str, float]:
    """Path -> kbit/s at ``RATE`` over kbit/s at ``BASE`` on one layout (paths with both)."""
    got = measured(records)
    paths = {p for s, p, _r in got if s == seed}
    return {p: got[(seed, p, RATE)] / got[(seed, p, BASE)] for p in paths
            if (seed, p, RATE) in got and got.get((seed, p, BASE))}


def median_ratio(records: Sequence[Mapping[str, Any]], seed: int,
                 one_hop: bool = False) -> Optional[float]:
    """The median ratio over the layout's paths longer than 1 hop (``one_hop``: the 1-hop
    paths instead)."""
    vals = [v for p, v in ratios(records, seed).items() if (M.hops_of(p) == 1) == one_hop]
    return stats.median(vals) if vals else None


def verdict(records: Sequence[Mapping[str, Any]], seed: int) -> M.Verdict:
    """Claim 12 on one layout, in the form of ``map_analysis.verdicts``' twelfth entry."""
    beyond, one = median_ratio(records, seed), median_ratio(records, seed, one_hop=True)
    ours = "-" if beyond is None else (
        f"median {beyond:.2f} beyond 1 hop" + (f", {one:.2f} at 1 hop" if one is not None
                                               else ""))
    return M.Verdict("eleven", CLAIM, f"RTS/CTS off, window unclamped, {BASE:g} against "
                     f"{RATE:g} Mbit/s fixed", "very low", ours,
                     None if beyond is None else beyond < VERY_LOW, CRITERION)


def table_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Per path: kbit/s at 5.5 and at 11 Mbit/s and their ratio, one column per layout."""
    got = measured(records)
    layouts = seeds(records)
    paths = sorted({p for _s, p, _r in got}, key=lambda p: (M.hops_of(p), p))
    out = ["| path | hops | " + " | ".join(f"seed {s}: {BASE:g} / {RATE:g} Mbit/s (ratio)"
                                            for s in layouts) + " |",
           "|---|---|" + "---|" * len(layouts)]
    for p in paths:
        cells = []
        for s in layouts:
            lo, hi = got.get((s, p, BASE)), got.get((s, p, RATE))
            cells.append("-" if lo is None or hi is None else
                         f"{lo:.0f} / {hi:.0f} ({hi / lo:.2f})" if lo else f"{lo:.0f} / {hi:.0f}")
        out.append(f"| {p} | {M.hops_of(p)} | " + " | ".join(cells) + " |")
    return out


def _hop_mean(src: Dict[Key, float], rate: float, hops: int) -> Optional[float]:
    vals = [v for (_s, p, r), v in src.items() if r == rate and M.hops_of(p) == hops]
    return stats.mean(vals) if vals else None


def medium_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Per hop count and rate, over layouts and paths: the share of the medium's attempts
    received and the frames dropped at the retry limit per run (why 11 Mbit/s does what it
    does: weaker links lose more attempts at the higher rate)."""
    att, drops = measured(records, "attempts"), measured(records, "drops")
    pct = lambda v: "-" if v is None else f"{100 * v:.0f} %"  # noqa: E731
    num = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
    out = ["| hops | attempts received, 5.5 / 11 Mbit/s | retry-limit drops per run, "
           "5.5 / 11 Mbit/s |", "|---|---|---|"]
    for h in sorted({M.hops_of(p) for _s, p, _r in att}):
        out.append(f"| {h} | {pct(_hop_mean(att, BASE, h))} / {pct(_hop_mean(att, RATE, h))} | "
                   f"{num(_hop_mean(drops, BASE, h))} / {num(_hop_mean(drops, RATE, h))} |")
    return out


def section_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The run's part of a report or the paper page: the per-path table, the medium's view and
    the claim's verdict on each layout."""
    broken = [rec for rec in records if broken_path(rec)]
    out = [f"Each of the paper's 14 paths at a fixed {BASE:g} and {RATE:g} Mbit/s, RTS/CTS off, "
           "the receiver's window unclamped, one 20 s BIC flow per point; kbit/s (means over "
           "runs) and their ratio.", ""] + table_lines(records) + [""]
    if broken:
        out += ["Counted as 0 kbit/s: runs whose path carried none of the pings sent along it "
                "before the flow (each ping up to 11 attempts per hop): "
                + "; ".join(f"{A.param(r, 'topology.path')} at "
                            f"{float(A.param(r, 'topology.rate')):g} Mbit/s, seed "
                            f"{_seed(r)}" for r in broken) + ".", ""]
    med = medium_lines(records)
    if len(med) > 2:
        out += ["What the medium saw (means over layouts and paths):", ""] + med + [""]
    out += [f"Claim 12 (\"{CLAIM}\", §3, the authors' prior experience) judged on each layout "
            f"by the {CRITERION}:", "", "| layout | ours | holds |", "|---|---|---|"]
    for s in seeds(records):
        v = verdict(records, s)
        out.append(f"| seed {s} | {v.ours} | "
                   f"{'-' if v.holds is None else 'yes' if v.holds else 'no'} |")
    return out + [""]
