"""Paper 000, claim 12 (11 Mbit/s gives very low throughput beyond 1 hop): what it would take.
A test of one reading, not the model.

``map_receiver`` found that a receiver worse at every rate (a higher noise figure) breaks the
paper's 2 Mbit/s link fact before it fails the median multi-hop path at 11 Mbit/s, and that
receivers at the SNRs quoted for 802.11b lose more at 5.5 than at 11 Mbit/s. What is left is a
receiver that loses SNR at 11 Mbit/s alone. Here, on the medium's link table, the loss at
11 Mbit/s (``topology.rate_loss: {11: X}``) in half-dB steps: per layout, how many of the ten
multi-hop paths have a hop that carries less at 11 than at 5.5 Mbit/s and whether the paper's
link facts still hold. The smallest loss at which claim 12 holds in the table on every layout
is what studies/p000_campus/experiments/000_eleven_loss.yaml runs (5.5 dB), and the run says whether the
table's prediction becomes throughput, against 000_rate11 (the same paths with the ideal
receivers). Then claim 11 with the same receivers (studies/p000_campus/experiments/000_auto_eleven_loss.yaml):
on our layouts auto rate falls behind 5.5 Mbit/s where a path cannot hold 11 Mbit/s
(``map_auto_rate``), so the receiver that gives claim 12 should move claim 11 too.

Imports: map_receiver (the link table at a receiver), map_links (the link facts), map_eleven
(the runs' ratios and claim 12's criterion), map_auto_rate (its share that holds 11 Mbit/s),
map_analysis (hop counts), the campus builder.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.medium.propagation import NOISE_FIGURE_DB
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_auto_rate
from studies.p000_campus import map_eleven as E
from studies.p000_campus import map_links as L
from studies.p000_campus import map_receiver as R
from topologies import campus as C

#: dB lost at 11 Mbit/s alone, tried on the link table.
LOSSES: Tuple[float, ...] = tuple(x / 2 for x in range(0, 15))
#: What the run sets (studies/p000_campus/experiments/000_eleven_loss.yaml): ``threshold`` of ``sweep()``.
RUN_LOSS = 5.5
#: The 1-hop paths the paper says hold 11 Mbit/s (``map_links``' facts), checked in the run.
HOLD_11 = ("23-1", "5-28")
AUTO = "auto"


@dataclass(frozen=True)
class Layout:
    """One layout with receivers ``loss`` dB worse at 11 Mbit/s: the multi-hop paths that
    fail at 11 Mbit/s in the link table and the paper's link facts it breaks."""

    seed: int
    loss: float
    failing: Tuple[str, ...]
    broken: Tuple[str, ...]      # the ``map_links`` facts that no longer hold (their text)

    @property
    def claim_12(self) -> bool:
        """More than half of the multi-hop paths fail at 11 Mbit/s (the median path does)."""
        return 2 * len(self.failing) > len(R.MULTI_HOP)

    @property
    def holds(self) -> bool:
        """Claim 12 in the table with the paper's link facts intact."""
        return self.claim_12 and not self.broken


def layout(campus: C.Campus, seed: int, loss: float) -> Layout:
    """The layout's link table with every receiver ``loss`` dB worse at 11 Mbit/s."""
    links = R.table(campus, seed, NOISE_FIGURE_DB, {E.RATE: loss} if loss else None)
    broken = tuple(f.what for f in L.link_facts(campus, seed, links) if not f.holds)
    return Layout(seed, loss, R.failing_paths(links), broken)


def sweep(seeds: Sequence[int] = (1, 2, 3), losses: Sequence[float] = LOSSES,
          campus: Optional[C.Campus] = None) -> List[Layout]:
    """Every layout at every loss."""
    campus = campus or C.load_campus(C.DEFAULT_CAMPUS)
    return [layout(campus, s, x) for s in seeds for x in losses]


def threshold(found: Sequence[Layout]) -> Optional[float]:
    """The smallest loss at which claim 12 holds in the table, link facts intact, on every
    layout swept (None: at none)."""
    seeds = {f.seed for f in found}
    for loss in sorted({f.loss for f in found}):
        if all(f.holds for f in found if f.loss == loss) and \
                {f.seed for f in found if f.loss == loss} == seeds:
            return loss
    return None


def holding(found: Sequence[Layout], seed: int) -> List[float]:
    """The losses at which claim 12 holds in the table on one layout, link facts intact."""
    return sorted(f.loss for f in found if f.seed == seed and f.holds)


def table_lines(found: Sequence[Layout]) -> List[str]:
    """Per loss, per layout: the multi-hop paths failing at 11 Mbit/s and the facts broken."""
    seeds = sorted({f.seed for f in found})
    at = {(f.seed, f.loss): f for f in found}
    out = ["| loss at 11 Mbit/s (dB) | " + " | ".join(f"seed {s}" for s in seeds) + " |",
           "|---|" + "---|" * len(seeds)]
    for loss in sorted({f.loss for f in found}):
        cells = []
        for s in seeds:
            f = at.get((s, loss))
            cells.append("-" if f is None else
                         f"{len(f.failing)} of {len(R.MULTI_HOP)} fail at 11; "
                         + ("facts hold" if not f.broken else
                            "broken: " + "; ".join(f.broken)))
        out.append(f"| {loss:g} | " + " | ".join(cells) + " |")
    return out


def _ratios(records: Sequence[Mapping[str, Any]]) -> Dict[int, Dict[str, float]]:
    return {s: E.ratios(records, s) for s in E.seeds(records)}


def prediction(found: Sequence[Layout], records: Sequence[Mapping[str, Any]], loss: float
               ) -> Dict[int, Tuple[int, int]]:
    """Seed -> (multi-hop paths where the table at ``loss`` and the run agree on failing at
    11 Mbit/s (the run: 11 carries less than 5.5), paths compared)."""
    out = {}
    for seed, ratio in _ratios(records).items():
        f = next((x for x in found if x.seed == seed and x.loss == loss), None)
        paths = [p for p in ratio if M.hops_of(p) > 1]
        if f is not None and paths:
            out[seed] = (sum(1 for p in paths if (p in f.failing) == (ratio[p] < 1.0)),
                         len(paths))
    return out


def run_lines(records: Sequence[Mapping[str, Any]], base: Sequence[Mapping[str, Any]]
              ) -> List[str]:
    """Per path and layout, (kbit/s at 11) / (kbit/s at 5.5) with the ideal receivers
    (``base``: 000_rate11) and with the loss at 11 (``records``), then claim 12 per layout."""
    with_loss, ideal = _ratios(records), _ratios(base)
    seeds = sorted(with_loss)
    paths = sorted({p for r in with_loss.values() for p in r}, key=lambda p: (M.hops_of(p), p))
    fmt = lambda r, s, p: "-" if p not in r.get(s, {}) else f"{r[s][p]:.2f}"  # noqa: E731
    out = ["| path | hops | " + " | ".join(f"seed {s}: ideal / worse at 11" for s in seeds)
           + " |", "|---|---|" + "---|" * len(seeds)]
    for p in paths:
        out.append(f"| {p} | {M.hops_of(p)} | " + " | ".join(
            f"{fmt(ideal, s, p)} / {fmt(with_loss, s, p)}" for s in seeds) + " |")
    out += ["", "Claim 12 per layout (" + E.CRITERION + "):", "",
            "| layout | ideal receivers (000_rate11) | worse at 11 Mbit/s | holds | "
            "23-1 and 5-28 hold 11 Mbit/s |", "|---|---|---|---|---|"]
    yes_no = lambda v: "-" if v is None else "yes" if v else "no"  # noqa: E731
    for s in seeds:
        before, after = E.verdict(base, s), E.verdict(records, s)
        out.append(f"| seed {s} | {before.ours} | {after.ours} | {yes_no(after.holds)} | "
                   f"{yes_no(facts_in_run(records, s))} |")
    return out


def facts_in_run(records: Sequence[Mapping[str, Any]], seed: int) -> Optional[bool]:
    """Whether the run keeps the paper's link facts at 11 Mbit/s on one layout: 23-1 and 5-28
    carry more at 11 than at 5.5 Mbit/s (None: not both measured)."""
    ratio = E.ratios(records, seed)
    if not all(p in ratio for p in HOLD_11):
        return None
    return all(ratio[p] > 1.0 for p in HOLD_11)


def verdict(found: Sequence[Layout], records: Sequence[Mapping[str, Any]]) -> str:
    """The section's conclusion: whether the loss the table needs makes claim 12 hold in the
    run on at least two layouts, and what that does and does not explain."""
    need = threshold(found)
    if need is None:
        return ("**Verdict:** not explained: no loss at 11 Mbit/s alone up to "
                f"{max(f.loss for f in found):g} dB fails the median multi-hop path on every "
                "layout while the paper's link facts hold.")
    seeds = E.seeds(records)
    held = [s for s in seeds if E.verdict(records, s).holds and facts_in_run(records, s)]
    head = (f"in the link table claim 12 needs receivers at least {need:g} dB worse at "
            "11 Mbit/s alone (on every layout; "
            + "; ".join(f"seed {s}: {_span(holding(found, s))}" for s in sorted(
                {f.seed for f in found})) + ")")
    if not seeds:
        return f"**Verdict:** {head}; not yet run."
    ran = (f"with them the run makes claim 12 hold, 23-1 and 5-28 still carrying more at "
           f"11 than at 5.5 Mbit/s, on {len(held)} of {len(seeds)} layouts"
           + (f" ({_seeds(held)})" if held else ""))
    lost: Dict[str, List[int]] = {}
    for s, ratio in _ratios(records).items():
        for p, r in ratio.items():
            if M.hops_of(p) == 1 and r < 1.0:
                lost.setdefault(p, []).append(s)
    if lost:
        ran += (f"; it also takes 11 Mbit/s from the 1-hop path{'s' if len(lost) > 1 else ''} "
                + ", ".join(f"{p} ({_seeds(at)})" for p, at in sorted(lost.items())))
    return (f"**Verdict:** what it would take, not an explanation: {head}; {ran}. The SNRs "
            f"quoted for 802.11b receivers ({R.QUOTED[11.0]:g} dB worse than the formulas at "
            f"11 Mbit/s, {R.QUOTED[5.5]:g} at 5.5) do not supply it, since they handicap "
            "5.5 Mbit/s more; a loss mostly at 11 Mbit/s is what multipath would cause (CCK "
            "at 11 Mbit/s tolerates the least delay spread of the 802.11b rates), "
            "which the medium does not model and the paper does not measure, so claim 12 "
            "stays without a tested explanation: a receiver that loses this much at 11 Mbit/s "
            "alone reproduces it, and no published figure says MAP's did.")


def _seeds(at: Sequence[int]) -> str:
    return ("seeds " if len(at) > 1 else "seed ") + ", ".join(map(str, sorted(at)))


def _span(losses: Sequence[float]) -> str:
    if not losses:
        return "at none"
    return f"{losses[0]:g} dB" if len(losses) == 1 else \
        f"{losses[0]:g}-{losses[-1]:g} dB" + (" and beyond" if losses[-1] == LOSSES[-1] else "")


def section_lines(found: Sequence[Layout], records: Sequence[Mapping[str, Any]],
                  base: Sequence[Mapping[str, Any]]) -> List[str]:
    """The page's section: the link-table sweep, the run against 000_rate11, the verdict."""
    out = ["Whether receivers that lose SNR at 11 Mbit/s alone make claim 12 hold: a worse "
           "receiver at every rate breaks the paper's 2 Mbit/s link fact first, and the SNRs "
           "quoted for 802.11b lose more at 5.5 than at 11 Mbit/s (the section \"A worse "
           "receiver\"). The medium's link table with every receiver X dB worse at 11 Mbit/s "
           "(`topology.rate_loss: {11: X}`): a multi-hop path fails at 11 Mbit/s when one of "
           f"its hops carries less at 11 than at 5.5 Mbit/s; claim 12 needs more than half of "
           f"the {len(R.MULTI_HOP)} to fail.", ""] + table_lines(found) + [""]
    if records:
        pred = prediction(found, records, RUN_LOSS)
        out += [f"The run (`paper000_eleven_loss`): the 14 paths at 5.5 and 11 Mbit/s with "
                f"receivers {RUN_LOSS:g} dB worse at 11 Mbit/s, beside `paper000_rate11`; "
                "(kbit/s at 11) / (kbit/s at 5.5), one 20 s BIC flow per point, RTS/CTS off, "
                "window unclamped. The table at that loss and the run agree on which multi-hop "
                "paths fail at 11 Mbit/s: " + "; ".join(
                    f"seed {s}: {a} of {n}" for s, (a, n) in sorted(pred.items())) + ".", ""]
        out += run_lines(records, base) + [""]
    return out + [verdict(found, records), ""]


# -- claim 11 with the same receivers (studies/p000_campus/experiments/000_auto_eleven_loss.yaml) ----------
def auto_kbps(records: Sequence[Mapping[str, Any]]) -> Dict[Tuple[int, str], float]:
    """(seed, path) -> kbit/s at auto rate, mean over runs (``map_eleven.measured``: a run
    whose path carried none of the pings before its flow counts as 0)."""
    return {(s, p): v for (s, p, _r), v in E.measured(records, rates=(AUTO,)).items()}


def auto_by_hops(auto: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]]
                 ) -> Dict[int, Dict[int, Tuple[float, float]]]:
    """Seed -> hop count -> (auto, 5.5 Mbit/s) kbit/s, means over the paths measured at both
    (``auto``: 000_auto_eleven_loss; ``records``: 000_eleven_loss)."""
    at_auto, fixed = auto_kbps(auto), E.measured(records)
    pairs: Dict[Tuple[int, int], List[Tuple[float, float]]] = {}
    for (seed, path), a in at_auto.items():
        b = fixed.get((seed, path, E.BASE))
        if b is not None:
            pairs.setdefault((seed, M.hops_of(path)), []).append((a, b))
    out: Dict[int, Dict[int, Tuple[float, float]]] = {}
    for (seed, hops), got in pairs.items():
        out.setdefault(seed, {})[hops] = (sum(a for a, _b in got) / len(got),
                                          sum(b for _a, b in got) / len(got))
    return out


def claim_11(by_hops: Mapping[int, Tuple[float, float]]) -> Optional[bool]:
    """Claim 11's pattern on one layout: auto ahead of 5.5 Mbit/s at 1, 2 and 4 hops, behind
    at 3 (None: not every hop count measured)."""
    if sorted(by_hops) != [1, 2, 3, 4]:
        return None
    return all((a > b) == (h != 3) for h, (a, b) in by_hops.items())


def auto_lines(auto: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]]
               ) -> List[str]:
    """The claim-11 section: per path auto / 5.5 beside 11 / 5.5 (both with the receivers worse
    at 11 Mbit/s), whether auto falls behind exactly where 11 Mbit/s fails, and the pattern
    per hop count on each layout."""
    at_auto, fixed = auto_kbps(auto), E.measured(records)
    if not fixed:
        return ["The 5.5 and 11 Mbit/s runs these are read against are `paper000_eleven_loss`'s; "
                "the paper page (studies/p000_campus/report.md) sets the two together.", ""]
    seeds = sorted({s for s, _p in at_auto})
    paths = sorted({p for _s, p in at_auto}, key=lambda p: (M.hops_of(p), p))
    out = ["Whether the receivers that make claim 12 hold also give claim 11's pattern (auto "
           "rate ahead of 5.5 Mbit/s at 1, 2 and 4 hops, behind at 3): on our layouts auto "
           "rate falls behind 5.5 Mbit/s where a path cannot hold 11 Mbit/s (the section "
           "\"Auto rate against 5.5 Mbit/s, path by path\"). Auto rate (minstrel) on the 14 "
           f"paths with receivers {RUN_LOSS:g} dB worse at 11 Mbit/s alone "
           "(`paper000_auto_eleven_loss`), beside the 5.5 and 11 Mbit/s runs of "
           "`paper000_eleven_loss`; RTS/CTS off, window unclamped, one 20 s BIC flow per "
           "point. Written before the run, from the link table: most paths fail at 11 Mbit/s "
           "at 3 hops on seeds 1 and 3 and at 4 hops on seed 2, so the pattern could appear on "
           "seeds 1 and 3 and not on seed 2.", "",
           "| path | hops | " + " | ".join(f"seed {s}: auto / 5.5, 11 / 5.5" for s in seeds)
           + " |", "|---|---|" + "---|" * len(seeds)]
    agree = {s: [0, 0] for s in seeds}
    for p in paths:
        cells = []
        for s in seeds:
            a, b, c = at_auto.get((s, p)), fixed.get((s, p, E.BASE)), fixed.get((s, p, E.RATE))
            if a is None or not b or c is None:
                cells.append("-")
                continue
            cells.append(f"{a / b:.2f}, {c / b:.2f}")
            agree[s][1] += 1
            agree[s][0] += map_auto_rate.PathRates(p, a / b, c / b).agrees
        out.append(f"| {p} | {M.hops_of(p)} | " + " | ".join(cells) + " |")
    out += ["", "Auto rate ahead of 5.5 Mbit/s exactly where the path holds 11 Mbit/s (11 / 5.5 "
            f">= {map_auto_rate.HOLDS:g}): " + "; ".join(f"seed {s}: {a} of {n} paths"
                                                   for s, (a, n) in agree.items()) + ".", "",
            "| layout | " + " | ".join(f"{h} hop{'s' if h > 1 else ''}: auto / 5.5 kbit/s"
                                    for h in (1, 2, 3, 4))
            + " | claim 11's pattern |", "|---|---|---|---|---|---|"]
    by = auto_by_hops(auto, records)
    held = []
    for s in seeds:
        means = by.get(s, {})
        mark = claim_11(means)
        held += [s] if mark else []
        out.append(f"| seed {s} | " + " | ".join(
            f"{means[h][0]:.0f} / {means[h][1]:.0f}" if h in means else "-"
            for h in (1, 2, 3, 4)) + " | " + ("-" if mark is None else "yes" if mark else "no")
            + " |")
    text = (f"claim 11's pattern holds on {len(held)} of {len(seeds)} layouts"
            + (f" ({_seeds(held)})" if held else ""))
    both = "so one receiver gives claims 11 and 12 together on " + (
        "at least two layouts" if len(held) >= 2 else "fewer than two layouts")
    return out + ["", f"**Verdict:** with the receivers that make claim 12 hold, {text}; "
                  f"{both}. The receiver itself stays what it would take, not a measured "
                  "property of MAP's cards.", ""]
