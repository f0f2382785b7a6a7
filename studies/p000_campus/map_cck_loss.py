"""Paper 000's reading of real receivers at the CCK rates (studies/p000_campus/experiments/000_cck_loss.yaml):
the 3- and 4-hop paths of the default layout with the medium's ideal receivers or with
receivers that need the SNRs commonly quoted for 802.11b at a BER of 1e-5 (4.6 dB more than the
formulas at 5.5 Mbit/s, 2.7 dB more at 11; ``topology.rate_loss``, docs/medium.md), read as the
quantities of claims 3 and 5-7 per receiver, beside what the link table says the loss does to
each path's hops. It tests one reading of why MAP's long paths carried so much less than ours
(its 5.5 Mbit/s hops were weaker than our formulas make them); it is not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``),
``map_receiver`` (the quoted receivers, ``QUOTED``, as the experiment sets them),
``map_eleven`` (which failed runs are a broken path) and, for the link table, the campus
builder.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_variants as V
from studies.p000_campus.map_eleven import broken_path
from studies.p000_campus.map_receiver import QUOTED

if TYPE_CHECKING:
    from harness.medium.link_table import LinkTable

RATE = 5.5


def loss_map(rec: Mapping[str, Any]) -> Dict[float, float]:
    """The run's ``topology.rate_loss`` as rate -> dB (empty: the ideal formulas)."""
    value: Optional[Mapping[Any, Any]] = A.param(rec, "topology.rate_loss")
    return {float(k): float(v) for k, v in (value or {}).items()}


def loss_of(rec: Mapping[str, Any]) -> float:
    """The run's loss at 5.5 Mbit/s, the rate of its DATA frames (0: the ideal formulas)."""
    return loss_map(rec).get(RATE, 0.0)


def _label(value: float) -> str:
    return "ideal (the medium's)" if value == 0 else f"5.5 Mbit/s +{value:g} dB"


def _cell(value: float) -> str:
    return "ideal" if value == 0 else f"+{value:g} dB"


#: The condition this run varies (``map_variants``). A path that carried none of the pings
#: sent along it before the flow (``map_eleven.broken_path``) counts as 0 kbit/s: with these
#: receivers it carries nothing at 5.5 Mbit/s, its point's outcome, as MAP would have measured.
CCK_LOSS = V.Condition(loss_of, "receiver at 5.5 Mbit/s", _label, 0.0, "",
                       "receivers at the quoted CCK SNRs", cell=_cell, zero=broken_path)


def link_lines(paths: Sequence[str], losses: Sequence[Mapping[float, float]], seed: int = 1
               ) -> List[str]:
    """What each receiver makes of the paths' hops in the medium's link table: the weakest
    hop's chance that one full-size frame gets through per attempt at 5.5 Mbit/s (the worse
    direction), the mean over the hops, and the weakest hop at 2 Mbit/s (which the loss leaves
    alone, and with it the ETX probes and the routes); first the lowest mean SNR of the path's
    hops, the margin the loss eats into."""
    from topologies import campus as C
    place = C.load_campus()
    tables = [C.campus_links(C.with_rate_loss(place, loss or None), seed) for loss in losses]
    heads = [_label(loss.get(RATE, 0.0)) for loss in losses]
    out = ["| path | lowest mean SNR of a hop (dB) | "
           + " | ".join(f"{h}: weakest / mean hop at 5.5, weakest at 2" for h in heads)
           + " |", "|---|---|" + "---|" * len(losses)]
    for path in paths:
        names = [C.router_name(int(x)) for x in path.split("-")]
        # the SNR before fading, the worse direction; the same for every receiver
        snr = min(min(tables[0].get(a, b).snr_db, tables[0].get(b, a).snr_db)
                  for a, b in zip(names, names[1:]))
        cells = [f"{snr:.1f}"]
        for t in tables:
            hops = _worse_hops(t, names, RATE)
            cells.append(f"{min(hops):.2f} / {sum(hops) / len(hops):.2f}, "
                         f"{min(_worse_hops(t, names, 2)):.2f}")
        out.append(f"| {path} | " + " | ".join(cells) + " |")
    return out


def _worse_hops(table: LinkTable, names: Sequence[str], rate: float) -> List[float]:
    """Each hop's delivery ratio at ``rate`` in its worse direction."""
    return [min(table.delivery(a, b, rate), table.delivery(b, a, rate))
            for a, b in zip(names, names[1:])]


def section_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """The reading's part of a report or of the paper page, from all of its records (a
    broken path's failed runs count as 0 kbit/s; other failed runs are left out)."""
    nothing = [r for r in records if r.get("status") != "ok" and broken_path(r)]
    ok = [r for r in records if r.get("status") == "ok"] + nothing
    if not ok:
        return ["No run of the CCK-receiver reading is stored yet.", ""]
    windows = sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok})
    paths = sorted({str(A.param(r, "topology.path")) for r in ok},
                   key=lambda p: (M.hops_of(p), p))
    losses: List[Dict[float, float]] = []
    for rec in ok:
        if loss_map(rec) not in losses:
            losses.append(loss_map(rec))
    broken = sorted({(str(A.param(r, "topology.path")), _label(loss_of(r))) for r in nothing})
    losses.sort(key=lambda m: m.get(RATE, 0.0))
    return ["The same paths at 5.5 Mbit/s on the default layout (shadowing seed 1, the campus "
            "file's 2 dB fading), with the medium's receivers (its error formulas, which need "
            "1.42 dB of SNR at 5.5 Mbit/s and 4.32 dB at 11 for a BER of 1e-5) or receivers "
            "that need the SNRs commonly quoted for 802.11b at that BER (5.98 and 6.99 dB: "
            "`topology.rate_loss: {" + ", ".join(f"{r:g}: {db:g}" for r, db in QUOTED.items())
            + "}`; the formulas already agree with the "
            "quoted 1 and 2 Mbit/s figures within 0.2 dB; docs/medium.md). RTS/CTS on over "
            "off reads as claim 5 does (3 hops: means over the windows; 4 hops: best "
            "averages); windows measured: " + ", ".join(windows) + ".", "",
            "What each receiver makes of the hops (the medium's link table, one 1538-byte "
            "frame per attempt, the worse direction):", ""] \
        + link_lines(paths, losses) + ["", "What TCP got" + (
            f" ({len(nothing)} runs on a path that carried none of the pings sent along it before "
            "the flow count as 0 kbit/s: " + "; ".join(f"{p} with the {lab} receiver"
                                                       for p, lab in broken) + ")"
            if nothing else "") + ":", ""] + V.table_lines(ok, CCK_LOSS) \
        + V.exchange_section(ok, CCK_LOSS) \
        + ["", "The claims that differ on the default layout, judged per receiver (criteria "
           "as in the grid's, restricted to these paths and rate):", ""] \
        + V.claim_lines(ok, CCK_LOSS) + ["", V.verdict_line(ok, CCK_LOSS), ""]
