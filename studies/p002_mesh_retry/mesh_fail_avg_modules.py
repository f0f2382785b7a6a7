"""Paper 002's sweep claims on mac80211 with Linux 3.12's link-failure average, every module
(studies/p002_mesh_retry/experiments/002_fail_avg_modules.yaml, with 002_fail_avg.yaml's cubic): the test of
whether the reading ``mesh_fail_avg`` made with one module carries the sweep's claims for all
six. It reads the edited build's runs beside the reduced sweep's stock runs of the same points
(same topology, channel, flow length and base seed) and judges both sets with the sweep's own
claim criteria (``paper002.sweep_rows``); it is not the model.

Imports only the paper-analysis helpers, ``paper002``, ``mesh_fail_avg`` and ``mesh_lossy``'s
socket-sample reader.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence

from harness.analysis import records as A
from harness.study.claims import Row, fmt
from studies.p002_mesh_retry import mesh_fail_avg as F
from studies.p002_mesh_retry import mesh_lossy as L
from studies.p002_mesh_retry import paper as P

#: The experiment's name (``harness report`` and the page find its records by it).
NAME = "paper002_fail_avg_modules"
#: The sweep claims the section sets side by side (``paper002.sweep_rows``' keys).
KEYS = ("002.concave", "002.argmax", "002.small_hurts", "002.decline_3", "002.decline_5",
        "002.gain_best_3", "002.gain_max_3", "002.gain_best_5", "002.gain_max_5",
        "002.cc_independent", "002.five_below_three")
#: The paper's claims by key.
PAPER_CLAIMS = {c.key: c for c in P.CLAIMS}


def split(records: Sequence[Mapping[str, Any]]) -> Dict[str, List[Mapping[str, Any]]]:
    """The runs by build (``mesh_fail_avg.build_of``: the stock 6.1 first, then the edited)."""
    out: Dict[str, List[Mapping[str, Any]]] = {}
    for rec in records:
        out.setdefault(F.build_of(rec), []).append(rec)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] != F.STOCK, kv[0])))


def curve_rows(by_build: Mapping[str, Sequence[Mapping[str, Any]]], hops: int) -> List[str]:
    """Markdown: per module and build, the mean Mbit/s per limit (the argmax in bold), the
    runs a point and whether the peak stands out of its runs' spread."""
    lines = ["| module | mac80211 | " + " | ".join(f"R = {x}" for x in P.RETRY_LIMITS)
             + " | argmax | runs a point | peak over the next best |",
             "|---|---|" + "---|" * (len(P.RETRY_LIMITS) + 3)]
    per_build = {build: P.curves(recs, hops) for build, recs in by_build.items()}
    for module in P.MODULES:
        for build, data in per_build.items():
            series = data.get(module)
            if not series:
                continue
            m, peak = A.means(series), P.argmax(series)
            cells = [("**%.2f**" if x == peak else "%.2f") % m[x] if x in m else "-"
                     for x in P.RETRY_LIMITS]
            runs = min(len(v) for v in series.values())
            lines.append(f"| {module} | {build} | " + " | ".join(cells)
                         + f" | {peak} | {runs} | {P.peak_resolution(series)} |")
    return lines


#: The limits whose sender's window the section sets side by side: the smallest that carries
#: (R = 3 drops frames on this channel) and the largest (drops none).
WINDOW_LIMITS = (3, 31)


def window_rows(by_build: Mapping[str, Sequence[Mapping[str, Any]]], hops: int) -> List[str]:
    """Markdown: per module and build, the frames dropped at the limit and the sender's cwnd /
    RTT (medians of its socket samples) at R = 3 and R = 31: whether a small limit holds the
    window smaller than the module itself does."""
    heads = [f"R = {x}: drops per s, cwnd / RTT (segments / ms)" for x in WINDOW_LIMITS]
    lines = ["| module | mac80211 | " + " | ".join(heads) + " |",
             "|---|---|" + "---|" * len(heads)]
    for module in P.MODULES:
        for build, recs in by_build.items():
            at = {x: [r for r in recs if r.get("status") == "ok" and P.module_of(r) == module
                      and A.param(r, "topology.hops") == hops and P.limit_of(r) == x]
                  for x in WINDOW_LIMITS}
            if not all(at.values()):
                continue
            cells = []
            for x in WINDOW_LIMITS:
                drops = sum(P.limit_drops_per_s(r) for r in at[x]) / len(at[x])
                cwnd = [v for r in at[x] for v in L.socket_values(r, "cwnd")]
                rtt = [v for r in at[x] for v in L.socket_values(r, "rtt_ms")]
                med = (f"{P.stats_median(cwnd):.0f} / {P.stats_median(rtt):.0f}"
                       if cwnd and rtt else "-")
                cells.append(f"{drops:.1f}, {med}")
            lines.append(f"| {module} | {build} | " + " | ".join(cells) + " |")
    return lines


#: Per build, the sweep's claim rows by key (``paper002.sweep_rows`` on that build's runs).
Judged = Dict[str, Dict[str, Row]]


def judge(by_build: Mapping[str, Sequence[Mapping[str, Any]]]) -> Judged:
    return {build: {r.claim.key: r for r in P.sweep_rows(recs)}
            for build, recs in by_build.items()}


def claim_rows(judged: Judged) -> List[str]:
    """Markdown: each sweep claim with the paper's value and, per build, ours and the verdict."""
    lines = ["| claim | paper | " + " | ".join(f"mac80211 {b}" for b in judged) + " |",
             "|---|---|" + "---|" * len(judged)]
    for key in KEYS:
        claim = PAPER_CLAIMS[key]
        unit = f" {claim.unit}" if claim.unit else ""
        cells = []
        for rows in judged.values():
            row = rows.get(key)
            if row is None or row.ours is None:
                cells.append("-")
                continue
            detail = row.detail.replace(' (section "Where the peak lies")', "")
            detail = f"; {detail}" if detail else ""
            cells.append(f"{fmt(row.ours)}{unit}{detail}: **{row.verdict}**".replace("|", "/"))
        lines.append(f"| {claim.what} | {fmt(claim.paper)}{unit} | " + " | ".join(cells) + " |")
    return lines


def verdict(judged: Judged) -> str:
    """Which claims the edited build turns from not agreeing to agreeing, and back."""
    agree = {build: {k for k, r in rows.items() if r.verdict == "agrees"}
             for build, rows in judged.items()}
    stock = agree.get(F.STOCK, set())
    edited = set().union(*(v for b, v in agree.items() if b != F.STOCK))
    gained = [PAPER_CLAIMS[k].what for k in KEYS if k in edited and k not in stock]
    lost = [PAPER_CLAIMS[k].what for k in KEYS if k in stock and k not in edited]
    neither = [PAPER_CLAIMS[k].what for k in KEYS if k not in stock and k not in edited]
    parts = [("agree on the edited build only: " + "; ".join(gained)) if gained
             else "no claim agrees on the edited build that does not on the stock one"]
    if lost:
        parts.append("agree on the stock build only: " + "; ".join(lost))
    if neither:
        parts.append("agree on neither: " + "; ".join(neither))
    return "**Verdict:** " + "; ".join(parts) + "."


def section(records: Sequence[Mapping[str, Any]], heading: str = "##") -> List[str]:
    """The page's (or a report's) section (``records``: this file's runs, 002_fail_avg's and
    the reduced sweep's; any others are ignored)."""
    names = (NAME, F.NAME, F.BESIDE)
    mine = [r for r in records if r.get("status") == "ok" and r.get("experiment") in names]
    if not any(r.get("experiment") == NAME for r in mine):
        return []
    by_build = split(mine)
    out = [f"{heading} Linux 3.12's link-failure average, every module (a test of one reading)",
           "",
           f"`{NAME}` runs the sweep's other five modules on mac80211 rebuilt with 3.12's "
           f"link-failure average, as `{F.NAME}` ran cubic (3 and 5 hops, 30 s, the sweep's "
           f"channel); beside them the same points of `{F.BESIDE}` on the stock 6.1 module. "
           "The sweep's claims are judged on each build with the full sweep's criteria. "
           "Written before the run: if the decline is 6.1's link breaking, the five modules peak "
           "at R = 3 or 5 at 5 hops, as cubic did, and stay flat from R = 3-5 at 3 hops.", ""]
    for hops in sorted({h for recs in by_build.values() for h in P.hop_counts(recs)},
                       reverse=True):
        out += [f"{hops} hops (mean Mbit/s per retry limit):", ""] \
            + curve_rows(by_build, hops) + [""] \
            + [f"{hops} hops, what the small limit does to the sender's window:", ""] \
            + window_rows(by_build, hops) + [""]
    judged = judge(by_build)
    return out + ["The sweep's claims on each build:", ""] + claim_rows(judged) \
        + ["", verdict(judged), ""]
