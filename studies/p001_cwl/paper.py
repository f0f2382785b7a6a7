"""Paper 001: K. Chen, Y. Xue, K. Nahrstedt, "On Setting TCP's Congestion Window Limit in
Mobile Ad Hoc Networks" (ICC 2003). Claims (papers.md 001.3-001.5, catalogue E7) and the
report section that sets the CWL sweep (studies/p001_cwl/experiments/001_*.yaml) beside them.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import records as A
from harness.medium import counters
from harness.study.claims import Claim, Paper, Row, comparison_table, verdict_band
from harness.study.section import fig_path, figures_ok, link
from studies.p001_cwl.record_keys import RECORD_KEYS as RECORD_KEYS  # the records keep what is read

if TYPE_CHECKING:
    from harness.experiment.results import ResultSet
from policies.adaptive_window import CWL_TABLE, cwl_for_rthc

SWEEP = "studies/p001_cwl/experiments/001_cwl_sweep.yaml"
ADAPTIVE = "studies/p001_cwl/experiments/001_adaptive.yaml"
SIDE = "studies/p001_cwl/experiments/001_adaptive_vs_fixed.yaml"
MOBILE = "studies/p001_cwl/experiments/001_mobile.yaml"
#: Key of the adaptive runs in a side-by-side series (the fixed limits are ints).
ADAPTIVE_KEY = "adaptive"

#: The adaptive table per forward hop count (symmetric chains: RTHC = 2h), derived.
TABLE_BY_HOPS = {h: cwl_for_rthc(2 * h) for h in range(1, 16)}

CLAIMS: List[Claim] = [
    Claim("001.best_cwl_15", "best window limit (achievable BDP), 15-hop chain", 5, "packets",
          "§III-B text", experiment=SWEEP),
    Claim("001.k", "achievable BDP / round-trip hop count (k), h >= 3", 1 / 5, "",
          "§III-B, Fig. 4 text", experiment=SWEEP,
          note="paper: BDP <= kN, k = 1/5 in simulation; bound 1/8 < k < 1/4 (Corollary 1)"),
    Claim("001.k_bounds", "analytic bound on k", [1 / 8, 1 / 4], "", "Corollary 1", kind="text"),
    Claim("001.flat_1_2", "throughput spread over limits at 1-2 hops", "unchanged", "",
          "§III-B, Fig. 2 text", experiment=SWEEP,
          note="we judge limits >= 2 (limit 1 idles the link between segments)"),
    Claim("001.unimodal", "3-15 hops: throughput first improves with the limit, then degrades",
          "yes", "", "§III-B, Fig. 2 text", experiment=SWEEP),
    Claim("001.table", "adaptive CWL table (RTHC <= 4, 8, 12, 20, 26, 30)",
          [c for _, c in CWL_TABLE], "packets", "§IV table", experiment=ADAPTIVE),
    Claim("001.gain", "adaptive vs unbounded CWL, mobile 50-node MANET, 5-25 flows",
          [8, 16], "%", "§IV, Fig. 5 text", experiment=MOBILE,
          note="DSR there, 802.11s HWMP here (the reactive protocol the kernel has)"),
    Claim("001.queue", "mean outgoing queue, 25 flows: adaptive vs unbounded", [0.24, 2.47],
          "packets", "§IV text", experiment=MOBILE),
    Claim("001.drops", "queue-overflow drops, 25 flows: adaptive vs unbounded", [15097, 23105],
          "", "§IV text", experiment=MOBILE,
          note="printed as a '53% decrease'; the reduction is 34.7% (derived); 1000 s there"),
]

#: Shown at the end of the report section and the page.
OUT_OF_SCOPE = ("The mobile runs use 802.11s HWMP where the paper used DSR (no DSR "
                "implementation exists for Linux today), 100 s flows where it used 1000 s, and "
                "5, 15 and 25 flows of its 5-25. 802.11s peers neighbours with a four-frame "
                "handshake that DSR does not have: pairs at the edge of range fail it and try "
                "again at every beacon, a load on the air the paper's network did not carry "
                "(studies/p001_cwl/findings.md).")

PAPER = Paper("001", "Chen, Xue, Nahrstedt: On Setting TCP's Congestion Window Limit in MANETs",
              CLAIMS, {"paper001_cwl_sweep": SWEEP, "paper001_adaptive": ADAPTIVE,
                      "paper001_adaptive_vs_fixed": SIDE, "paper001_mobile": MOBILE})
#: Experiments the paper page's claim rows are computed from (by name prefix). The adaptive
#: runs carry no fixed limit: read as a CWL sweep they would pass for unlimited.
#: The experiments (of records/) the study's page is made from, in its order.
PAGE_FROM = ("001_cwl_sweep", "001_adaptive", "001_adaptive_vs_fixed", "001_mobile")

ROWS_FROM = ("paper001_cwl_sweep",)

REGIMES = {False: "one ACK per segment (paper's sink, quickack)",
           True: "Linux delayed ACK"}


def regimes_present(records: Sequence[Mapping[str, Any]]) -> List[bool]:
    found = {bool(A.param(r, "policy.delayed_ack")) for r in records if r.get("status") == "ok"}
    return [x for x in (False, True) if x in found]


def per_hop(records: Sequence[Mapping[str, Any]], delayed: bool, metric: A.Metric = A.packets_per_s
            ) -> Dict[int, A.Series]:
    """``{hops: {limit: [metric]}}`` in one ACK regime (limit None = unlimited)."""
    out: Dict[int, A.Series] = {}
    for hops, recs in sorted(A.groups_by(records, "topology.hops").items()):
        s = A.collect(recs, "policy.cwnd_clamp", metric,
                      where={"policy.delayed_ack": delayed})
        if s:
            out[hops] = s
    return out


def achievable(records: Sequence[Mapping[str, Any]], delayed: bool) -> Dict[int, Optional[int]]:
    """Smallest limit reaching 95% of the best mean, per hop count."""
    return {h: A.smallest_reaching(s, 0.95) for h, s in per_hop(records, delayed).items()}


def rows(records: Sequence[Mapping[str, Any]]) -> List[Row]:
    """The claim table with our values from a CWL sweep (paper's regime: quickack)."""
    out: List[Row] = []
    data = per_hop(records, False)
    ach = achievable(records, False)
    best = {h: A.best_limited(s) for h, s in data.items()}
    c = PAPER.claim
    r15 = best.get(15)
    out.append(Row(c("001.best_cwl_15"), r15, "argmax of mean packets/s over limits 1..20",
                   verdict_band([4, 6], r15) if r15 is not None else "not measured"))
    ks = [a / (2 * h) for h, a in ach.items() if h >= 3 and a is not None]
    k = sum(ks) / len(ks) if ks else None
    out.append(Row(c("001.k"), k, f"mean over {len(ks)} chains of (smallest limit reaching 95% "
                   "of the best) / 2h", verdict_band([1 / 8, 1 / 4], k)))
    out.append(Row(c("001.k_bounds"), k, "same k", verdict_band([1 / 8, 1 / 4], k)))
    flat = []
    for h in (1, 2):
        if h in data:
            m = {x: v for x, v in A.means(data[h]).items() if x is None or x >= 2}
            if len(m) >= 2:
                flat.append((h, (max(m.values()) - min(m.values())) / max(m.values())))
    out.append(Row(c("001.flat_1_2"),
                   ", ".join(f"{h} hop: {s:.1%}" for h, s in flat) if flat else None,
                   "(max - min) / max over limits >= 2 and none",
                   ("agrees" if all(s < 0.10 for _, s in flat) else "differs") if flat
                   else "not measured"))
    uni = [h for h in data if h >= 3]
    rise_fall = [h for h in uni if _rises_then_falls(data[h])]
    out.append(Row(c("001.unimodal"), f"{len(rise_fall)} of {len(uni)} chains" if uni else None,
                   "peak after limit 1, and the largest limit (or none) below the peak",
                   ("agrees" if uni and len(rise_fall) == len(uni) else
                    "partly" if rise_fall else "differs") if uni else "not measured"))
    out.append(Row(c("001.table"), None, "the adaptive policy applies this table; see the "
                   "adaptive experiment", "implemented"))
    return out + [Row(c(key), None, "", "see the mobile experiment")
                  for key in ("001.gain", "001.queue", "001.drops")]


# -- E9: the mobile MANET ------------------------------------------------------------------------
def mobile_metrics(rec: Mapping[str, Any]) -> Optional[Dict[str, float]]:
    """One mobile run over its flows: aggregate goodput (kbit/s; a flow whose path broke is
    read from its sender's socket samples), mean queue (frames waiting per radio, the mean over
    the 50 radios of their time averages) and the queue-overflow drops of all radios."""
    medium = rec.get("medium") or {}
    start, end = medium.get("at_flows_start"), (medium.get("summary") or {}).get("radios")
    kbps = A.throughput_kbps(rec)
    if kbps is None or not start or not end:
        return None
    seconds = max(float(f["duration"]) for f in A.param(rec, "flows"))
    use = counters.queue_use(start, end, seconds)
    unprimed = sum(1 for f in rec["flows"]
                   if ((f.get("checks") or {}).get("adaptive_window") or {}).get("primed") is False)
    return {"kbps": kbps, "queue": use["mean_queue"], "drops": float(use["overflow_drops"]),
            "unprimed": float(unprimed)}


def mobile_series(records: Sequence[Mapping[str, Any]]
                  ) -> Dict[int, Dict[bool, List[Dict[str, float]]]]:
    """``{flows: {adaptive: [metrics per run]}}``."""
    out: Dict[int, Dict[bool, List[Dict[str, float]]]] = {}
    for rec in records:
        m = mobile_metrics(rec) if rec.get("status") == "ok" else None
        if m is not None:
            key = (len(A.param(rec, "flows")), A.param(rec, "policy.adaptive_window") is True)
            out.setdefault(key[0], {}).setdefault(key[1], []).append(m)
    return {n: out[n] for n in sorted(out)}


def mobile_means(records: Sequence[Mapping[str, Any]]) -> Dict[int, Dict[bool, Dict[str, float]]]:
    """``{flows: {adaptive: {metric: mean over runs}}}`` where both policies ran."""
    out = {}
    for n, by in mobile_series(records).items():
        if len(by) == 2:
            out[n] = {ad: {k: sum(m[k] for m in runs) / len(runs) for k in runs[0]}
                      for ad, runs in by.items()}
    return out


def mobile_rows(records: Sequence[Mapping[str, Any]]) -> List[Row]:
    """The three E9 claims from the mobile runs: the mean gain over the flow counts, and the
    queue and the drops at the most flows run (the paper's 25)."""
    means, c = mobile_means(records), PAPER.claim
    if not means:
        return [Row(c(k), None, "", "not measured") for k in ("001.gain", "001.queue", "001.drops")]
    gains = [100 * (m[True]["kbps"] / m[False]["kbps"] - 1) for m in means.values()
             if m[False]["kbps"] > 0]
    gain = sum(gains) / len(gains) if gains else None
    top = means[max(means)]
    queues = [top[True]["queue"], top[False]["queue"]]
    drops = [top[True]["drops"], top[False]["drops"]]
    return [
        Row(c("001.gain"), gain, f"mean over {len(gains)} flow counts of aggregate goodput, "
            "adaptive / unbounded - 1", verdict_band([8, 16], gain) if gain is not None
            else "not measured"),
        Row(c("001.queue"), [round(q, 2) for q in queues], f"{max(means)} flows, frames waiting "
            "per radio, time average", "agrees" if queues[1] >= 5 * queues[0] else "differs"),
        Row(c("001.drops"), drops, f"{max(means)} flows, all radios, over the flows",
            "agrees" if drops[0] < drops[1] else "differs"),
    ]


def mobile_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Markdown: per flow count, both policies' goodput, queue and drops."""
    lines = ["| flows | adaptive kbit/s | unbounded kbit/s | adaptive / unbounded | mean queue "
             "adaptive | mean queue unbounded | drops adaptive | drops unbounded | adaptive "
             "flows without their limit | runs |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    runs = mobile_series(records)
    for n, m in mobile_means(records).items():
        a, u = m[True], m[False]
        ratio = f"{a['kbps'] / u['kbps']:.2f}" if u["kbps"] else "-"
        lines.append(f"| {n} | {a['kbps']:.0f} | {u['kbps']:.0f} | {ratio} | {a['queue']:.2f} | "
                     f"{u['queue']:.2f} | {a['drops']:.0f} | {u['drops']:.0f} | "
                     f"{a.get('unprimed', 0):.0f} | {min(len(v) for v in runs[n].values())} |")
    return lines


def mobile_section(rs: ResultSet) -> List[str]:
    """E9 on the page and in the experiment's report."""
    return (["## Mobile MANET: adaptive against unbounded window limit (E9)", "",
             f"`{rs.name}`: 50 nodes, random waypoint 1-5 m/s over 1500 x 300 m, no pause; "
             "802.11b 2 Mbit/s, ns-2's ranges (geometry ns2-001); TCP Reno with the "
             "retransmission timeout capped at 2 s, SACK off; 802.11s HWMP as the reactive "
             "routing (the paper: DSR). Means over repetitions; queue = frames waiting per "
             "radio, time average over the flows, mean over the radios (the medium's "
             "queue_wait counter); drops = frames the radios' 25-frame queues refused. An "
             "adaptive flow whose pair found no path for its priming connection (before the "
             "nodes move) runs without its limit, counted in its own column.", ""]
            + mobile_lines(rs.ok) + ["", "### The paper's numbers beside ours", ""]
            + comparison_table(mobile_rows(rs.ok)) + [""])


def _rises_then_falls(series: A.Series) -> bool:
    """Peak after the smallest limit, and the largest limit (no limit, when run) below it."""
    m = A.means(series)
    xs = sorted(x for x in m if x is not None) + ([None] if None in m else [])
    if len(xs) < 3:
        return False
    peak = max(xs, key=lambda x: m[x])
    return peak != xs[0] and m[xs[-1]] < m[peak]


def adaptive_vs_best(adaptive: Sequence[Mapping[str, Any]], sweep: Sequence[Mapping[str, Any]]
                     ) -> List[Tuple[int, float, Optional[int], Optional[float]]]:
    """Per hop count: (hops, adaptive mean packets/s, best fixed limit, its mean packets/s);
    the last two None where the sweep has no runs at that hop count (paper's regime)."""
    data = per_hop(sweep, False)
    out = []
    for h, vals in A.collect(adaptive, "topology.hops", A.packets_per_s).items():
        best = A.best_limited(data[h]) if h in data else None
        best_mean = A.means(data[h])[best] if best is not None else None
        out.append((h, sum(vals) / len(vals), best, best_mean))
    return out


def adaptive_rows(adaptive: Sequence[Mapping[str, Any]], sweep: Sequence[Mapping[str, Any]]
                  ) -> List[str]:
    """Markdown: adaptive policy's packets/s beside the best fixed limit, per hop count, and
    beside the sweep's own run at the table's limit: the same settings, so the two differ
    only by noise (or by the code), which says how far to trust the ratio."""
    data = per_hop(sweep, False)
    lines = ["| hops | RTHC | table limit | adaptive pkts/s | sweep at the table limit pkts/s "
             "| best fixed limit | best fixed pkts/s | adaptive / best |",
             "|---|---|---|---|---|---|---|---|"]
    for h, mean_ad, best, bm in adaptive_vs_best(adaptive, sweep):
        limit = TABLE_BY_HOPS.get(h, cwl_for_rthc(2 * h))
        same = A.means(data.get(h, {})).get(limit)
        ratio = f"{mean_ad / bm:.2f}" if bm else "-"
        lines.append(f"| {h} | {2 * h} | {limit} | {mean_ad:.4g} | "
                     f"{f'{same:.4g}' if same is not None else '-'} | "
                     f"{best if best is not None else '-'} | "
                     f"{f'{bm:.4g}' if bm else '-'} | {ratio} |")
    return lines


def side_by_side(records: Sequence[Mapping[str, Any]]) -> Dict[int, A.Series]:
    """``{hops: {"adaptive": [...], limit: [...]}}`` from one experiment that runs the adaptive
    policy and fixed limits in the same session (001_adaptive_vs_fixed.yaml)."""
    out: Dict[int, A.Series] = {}
    for rec in records:
        value = A.packets_per_s(rec) if rec.get("status") == "ok" else None
        if value is None:
            continue
        key = ADAPTIVE_KEY if A.param(rec, "policy.adaptive_window") is True \
            else A.param(rec, "policy.cwnd_clamp")
        out.setdefault(A.param(rec, "topology.hops"), {}).setdefault(key, []).append(value)
    return {h: out[h] for h in sorted(out)}


def side_ratio(series: A.Series) -> Tuple[Optional[int], Optional[float]]:
    """(best fixed limit, adaptive mean / its mean) of one hop count's side-by-side series."""
    fixed = {k: v for k, v in series.items() if k != ADAPTIVE_KEY}
    best = A.best_limited(fixed) if fixed else None
    if best is None or ADAPTIVE_KEY not in series:
        return best, None
    return best, A.ratio(A.means(series)[ADAPTIVE_KEY], A.means(fixed)[best])


def side_rows(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Markdown: per hop count, the adaptive policy and every fixed limit of the same session,
    the best fixed limit and the ratio (means over repetitions, packets/s)."""
    data = side_by_side(records)
    limits = sorted({k for s in data.values() for k in s if isinstance(k, int)})
    lines = ["| hops | RTHC | table limit | adaptive | " + " | ".join(f"limit {l}" for l in limits)
             + " | best fixed | adaptive / best |",
             "|---|---|---|---|" + "---|" * len(limits) + "---|---|"]
    for h, series in data.items():
        m = A.means(series)
        best, r = side_ratio(series)

        def cell(k: Any, m: Dict[Any, float] = m) -> str:
            return f"{m[k]:.4g}" if k in m else "-"

        lines.append(f"| {h} | {2 * h} | {TABLE_BY_HOPS.get(h, cwl_for_rthc(2 * h))} | "
                     f"{cell(ADAPTIVE_KEY)} | " + " | ".join(cell(l) for l in limits)
                     + f" | {best if best is not None else '-'} | "
                     + (f"{r:.2f}" if r is not None else "-") + " |")
    return lines


def side_section(rs: ResultSet) -> List[str]:
    """The 10 % claim judged inside one experiment (no confound between experiments)."""
    data = side_by_side(rs.ok)
    ratios = [r for r in (side_ratio(s)[1] for s in data.values()) if r is not None]
    within = sum(1 for r in ratios if r >= 0.9)
    reps = max((len(v) for s in data.values() for v in s.values()), default=0)
    return ["## The adaptive limit beside fixed limits in the same session", "",
            f"`{rs.name}`: the adaptive policy and the fixed limits run interleaved (every case "
            f"of a hop count back to back, {reps} repetition{'s' if reps != 1 else ''}), at one code revision "
            f"({', '.join(revisions(rs.ok)) or '-'}), so they share host load and code. "
            "Packets/s, means over repetitions; the best fixed limit is the highest mean, "
            "biased upwards by noise. Within 10 % (ratio >= 0.90): "
            f"{within} of {len(ratios)} hop counts.", ""] + side_rows(rs.ok) + [""]


def revisions(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The code revisions that made these records, in first-seen order."""
    out: List[str] = []
    for rec in records:
        rev = (rec.get("environment") or {}).get("code_revision")
        if rev and rev not in out:
            out.append(str(rev))
    return out


def page_sections(sets: Sequence[ResultSet]) -> List[str]:
    """Paper page: the adaptive runs against the best fixed limit of the CWL sweep (001.4's
    "within 10%"), when both experiments are given (the claim needs both, so no single
    experiment's report can show it); then what the medium saw at each limit of the sweep."""
    sweep = next((rs for rs in sets if rs.name.startswith("paper001_cwl_sweep")), None)
    adaptive = next((rs for rs in sets if rs.name == "paper001_adaptive"
                     or rs.name.startswith("paper001_adaptive_quick")), None)
    side = next((rs for rs in sets if rs.name.startswith("paper001_adaptive_vs_fixed")), None)
    mobile = next((rs for rs in sets if rs.name.startswith("paper001_mobile")), None)
    extra = (side_section(side) if side is not None else []) + (
        mobile_section(mobile) if mobile is not None else [])
    if sweep is None:
        return extra
    if adaptive is None:
        return extra + medium_section(sweep.ok)
    lines = adaptive_rows(adaptive.ok, sweep.ok)
    ratios = [ad / bm for _h, ad, _best, bm in adaptive_vs_best(adaptive.ok, sweep.ok) if bm]
    within = sum(1 for r in ratios if r >= 0.9)
    revs_ad, revs_sw = revisions(adaptive.ok), revisions(sweep.ok)
    caveat = []
    session = []
    if side is not None:
        session = [f"The two experiments ran in different sessions. `{side.name}` below measures "
                   "fixed limits again in the session of its adaptive runs: set its columns "
                   "beside the sweep's to see how far one setting moves between sessions (host "
                   "load under TCG); the claim is judged there, where both share a session.", ""]
    if not set(revs_ad) <= set(revs_sw):
        caveat = [f"The two experiments ran at different code revisions ({', '.join(revs_ad)} "
                  f"against {', '.join(revs_sw)}): compare the adaptive column with the sweep's "
                  "run at the table limit before reading the ratio as the policy's.", ""]
    return (["## The adaptive limit against the best fixed limit", "",
             f"`{adaptive.name}` (limit from the round-trip hop count by the paper's table) "
             f"beside the best fixed limit of `{sweep.name}` at the same hop count, one ACK per "
             f"segment. The best fixed limit is the highest of 21 single runs, so it is biased "
             f"upwards by their noise. Within 10 % (ratio >= 0.90): {within} of {len(ratios)} "
             f"hop counts the sweep has reached.", ""] + caveat + lines + [""] + session
            + extra + medium_section(sweep.ok))


#: Limits the medium table shows (a readable subset of the sweep's 1..20 and none).
MEDIUM_LIMITS = (1, 2, 3, 4, 6, 10, 20, None)


def medium_rows(sweep: Sequence[Mapping[str, Any]]) -> List[str]:
    """Markdown: per hop count (>= 3) and limit, packets/s, the share of MAC attempts that
    succeeded and the retry-limit drops (one ACK per segment, means over repetitions)."""
    data = per_hop(sweep, False)
    success = per_hop(sweep, False, A.attempt_success)
    drops = per_hop(sweep, False, A.retry_drops)
    shown = [x for x in MEDIUM_LIMITS if any(x in data[h] for h in data if h >= 3)]
    if not shown:
        return []
    label = lambda x: "none" if x is None else str(x)  # noqa: E731
    lines = ["| hops | " + " | ".join(f"limit {label(x)}" for x in shown) + " |",
             "|---|" + "---|" * len(shown)]
    for h in sorted(data):
        if h < 3:
            continue
        pps, ok, dr = A.means(data[h]), A.means(success.get(h, {})), A.means(drops.get(h, {}))
        cells = []
        for x in shown:
            if x not in pps:
                cells.append("")
                continue
            cell = f"{pps[x]:.1f}"
            if x in ok:
                cell += f" · {ok[x]:.0%}"
            if x in dr:
                cell += f" · {dr[x]:.0f}"
            cells.append(cell)
        lines.append(f"| {h} | " + " | ".join(cells) + " |")
    return lines


def medium_section(sweep: Sequence[Mapping[str, Any]]) -> List[str]:
    lines = medium_rows(sweep)
    if not lines:
        return []
    return ["## What the medium saw at each limit", "",
            "One ACK per segment; each cell: packets/s · share of MAC transmission attempts "
            "received · frames dropped at the retry limit (whole run, all links). From 3 hops "
            "on, nodes three hops apart (750 m) are beyond each other's carrier-sense range "
            "(500 m): a window beyond what spatial reuse can carry puts more senders on the air "
            "at once, and hidden ones collide (the paper: throughput \"degrades after maximum "
            "spatial reuse\"). Collisions the MAC repairs by retrying cost airtime; only "
            "retry-limit drops reach TCP.", ""]\
        + lines + [""]


def why_differ() -> List[str]:
    """Reasons the emulator may legitimately differ (printed in every 001 section)."""
    return [
        "- **Queues above the MAC.** ns-2 had one 25-packet interface queue per node; here the "
        "medium keeps a 25-frame queue per radio, but Linux adds its qdisc, mac80211's per-station "
        "queues and TCP small queues above it, and hwsim stops a radio's queues at 100 pending "
        "frames. Unlimited windows therefore fill more buffer before the MAC drops, which "
        "changes how quickly large limits degrade.",
        "- **TCP.** Linux `reno` is NewReno with the kernel's RTO (min 200 ms), F-RTO, TSO-sized "
        "writes, timestamps and 1448-byte payloads; ns-2 Reno (2.1b8a) had 1460-byte packets "
        "and a coarser timer. Limit 1 with Linux's delayed ACK waits on the ACK timer every "
        "segment (docs/policies.md), so the delayed-ACK regime's optimum moves up.",
        "- **Geometry at the edge.** Neighbours sit exactly at the transmission range (250 m); "
        "the receive threshold is the two-ray power at 250 m, as in ns-2, so links work but "
        "any model difference (PLCP header errors, SINR-based reception instead of ns-2's "
        "threshold test) shows up first on these marginal links.",
        "- **Run length.** 30 s flows instead of 1000 s: one run per point in the full sweep, two "
        "in the adaptive runs. Single 30 s runs vary by a few percent (studies/p001_cwl/"
        "findings.md), so neighbouring limits within that much of each other are not ordered.",
        "- **Host load.** Under QEMU TCG the medium delivers frames late when the host is busy "
        "beside the VM, and such runs deliver a few percent less. Each experiment's report "
        "names the runs whose delivery lag stands out (\"Medium timing\"); `harness run "
        "--retry-lagged auto` runs them again. A native or KVM host has no such term.",
    ]


def report_section(rs: ResultSet, fig_dir: Path, report: Path, fmt: str) -> List[str]:
    """The paper's section of an experiment's report (``harness report``): figures in the
    paper's layout, the claim table with our numbers, why we may differ."""
    recs = rs.ok
    out: List[str] = []
    if rs.name.startswith("paper001_mobile"):
        return mobile_section(rs)[2:] + ["### Why we may differ", ""] + why_differ() + [""]
    if rs.name.startswith("paper001_adaptive_vs_fixed"):
        return side_section(rs)[2:] + ["### Why we may differ", ""] \
            + why_differ() + [""]
    if rs.name.startswith("paper001_adaptive"):
        out += ["Adaptive window limit by the paper's table (RTHC = 2h on these chains); "
                "compare with the best fixed limit of the CWL sweep's report.", ""]
        out += A.table_lines(A.collect(recs, "topology.hops", A.packets_per_s), "hops",
                             "packets/s") + [""]
        return out + ["### Why we may differ", ""] + why_differ() + [""]
    regimes = regimes_present(recs)
    if figures_ok() and regimes:
        panels = [(f"{REGIMES[d]}",
                   {f"{h} hop{'s' if h > 1 else ''}": s
                    for h, s in per_hop(recs, d).items()}) for d in regimes]
        path = fig_path(fig_dir, "paper001_packets_vs_limit", fmt)
        from harness.study.figures import achievable_figure, lines_figure
        lines_figure(panels, path, xlabel="window limit (packets)",
                     ylabel="delivered packets per second",
                     note="dashed: no window limit")
        out += ["Delivered packets against the window limit, one line per chain length "
                "(paper 001 Fig. 2; the paper counts packets over 1000 s, we show packets/s):",
                "", link(path, report, "packets vs limit"), ""]
        relative = [(title, {label: A.relative_to_best(s) for label, s in lines.items()})
                    for title, lines in panels]
        path_rel = fig_path(fig_dir, "paper001_relative_vs_limit", fmt)
        lines_figure(relative, path_rel, xlabel="window limit (packets)",
                     ylabel="packets/s / best of the chain", ref_y=0.95,
                     note="dashed: no window limit; dotted: 95 % of the best (achievable window)")
        out += ["The same, each chain divided by its best mean, so that every chain's shape shows "
                "on one scale; the first point on or above the dotted line is the achievable "
                "window:", "", link(path_rel, report, "relative packets vs limit"), ""]
        path2 = fig_path(fig_dir, "paper001_achievable_vs_rthc", fmt)
        achievable_figure({REGIMES[d]: achievable(recs, d) for d in regimes},
                          path2)
        out += ["Achievable window (smallest limit reaching 95% of the best mean) against the "
                "round-trip hop count, with the paper's k = 1/5 (Fig. 4):", "",
                link(path2, report, "achievable window"), ""]
    out += ["### The paper's numbers beside ours (paper's regime: one ACK per segment)", ""]
    out += comparison_table(rows(recs)) + [""]
    if len(regimes) == 2:
        out += ["### Regimes side by side", "",
                "| hops | table limit | best limit, ACK every segment | best limit, delayed ACK "
                "| achievable (95%), ACK every segment | achievable (95%), delayed ACK |",
                "|---|---|---|---|---|---|"]
        quick, delayed = per_hop(recs, False), per_hop(recs, True)
        aq, ad = achievable(recs, False), achievable(recs, True)
        for h in sorted(set(quick) | set(delayed)):
            out.append(f"| {h} | {TABLE_BY_HOPS.get(h, '-')} | "
                       f"{A.best_limited(quick.get(h, {})) or '-'} | "
                       f"{A.best_limited(delayed.get(h, {})) or '-'} | "
                       f"{aq.get(h) or '-'} | {ad.get(h) or '-'} |")
        out.append("")
    for d in regimes:
        out += [f"### Packets/s per limit, {REGIMES[d]}", ""]
        for h, s in per_hop(recs, d).items():
            best = A.best_limited(s)
            out += [f"{h} hop{'s' if h > 1 else ''}:", ""]
            out += A.table_lines(s, "limit", "packets/s", {best: "(best)"}) + [""]
    return out + ["### Why we may differ", ""] + why_differ() + [""]
