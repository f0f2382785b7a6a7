"""Paper 000's reading of host latency (studies/p000_campus/experiments/000_tx_delay.yaml): every packet
leaving a radio waits L ms first (``policy.tx_delay``), on the long paths at 5.5 Mbit/s, beside
the grid's own runs of the same paths (L = 0).

In the emulation a relay hands a received frame to its radio again within microseconds, so
after a hop's exchange the relay and the sender two hops back, hidden from each other, draw
their backoffs from the same instant, and one of them is mostly already on the air when the
other begins (000_collision_timing): a collision no RTS/CTS exchange prevents. A relay whose
frame waits begins later, inside the hidden sender's frame, where the receiver's CTS would
have held it back. Nothing published gives MAP's latency: the reading asks what it would take
for claims 5 and 7. It is not the model.

Imports only the paper-analysis helpers (``analysis``, ``map_analysis``, ``map_variants``).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Tuple

from harness.analysis import records as A
from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_variants as V


def delay_of(rec: Mapping[str, Any]) -> float:
    """The run's host latency in ms (0.0: none, the grid's runs)."""
    value = A.param(rec, "policy.tx_delay")
    return float(value) if value else 0.0


def _label(value: float) -> str:
    return f"host latency {value:g} ms" if value else "none (the grid's runs)"


#: The condition this reading varies (``map_variants``).
TX_DELAY = V.Condition(delay_of, "host latency (ms)", _label, 0.0, "ms",
                       "host latency before the radio")


def control_records(grid: Sequence[Mapping[str, Any]], runs: Sequence[Mapping[str, Any]]
                    ) -> List[Mapping[str, Any]]:
    """The grid's runs (no latency) on the reading's paths, layout, rate and windows."""
    def point(rec: Mapping[str, Any]) -> Tuple[Any, ...]:
        return (A.param(rec, "topology.path"), A.param(rec, "topology.shadowing_seed"),
                A.param(rec, "topology.rate"), A.param(rec, "policy.rwnd_clamp"))

    wanted = {point(r) for r in runs}
    return [r for r in grid if not delay_of(r) and point(r) in wanted]


def collision_lines(records: Sequence[Mapping[str, Any]]) -> List[str]:
    """Per latency and hop count, the collisions at the path's receivers per run and the share
    hit only by a frame that began a slot or more after the attempt (what a CTS can hold
    back), RTS/CTS off and on; empty where no record has the counter."""
    sums = A.collision_sums(records, lambda rec: (
        delay_of(rec), M.hops_of(A.param(rec, "topology.path")),
        bool(A.param(rec, "topology.rts"))))
    if not sums:
        return []

    def cells(key: Tuple[float, int, bool]) -> Tuple[str, str]:
        coll, late, runs = sums.get(key, [0, 0, 0])
        return (f"{coll / runs:.0f}" if runs else "-", A.fmt_share(late, coll))

    out = ["| host latency (ms) | hops | collisions per run off / on | hit only by a later frame "
           "off / on |", "|---|---|---|---|"]
    for value, h in sorted({(v, h) for v, h, _r in sums}):
        off, on = cells((value, h, False)), cells((value, h, True))
        out.append(f"| {value:g} | {h} | {off[0]} / {on[0]} | {off[1]} / {on[1]} |")
    return out


def rtt_rows(records: Sequence[Mapping[str, Any]]) -> Dict[Tuple[float, int], float]:
    """(latency, hops) -> the hop count's RTT (ms) at a 1-segment window with RTS/CTS off (the
    mean over its paths, as the grid averages)."""
    out: Dict[Tuple[float, int], float] = {}
    for value, grid in V.grids(records, TX_DELAY).items():
        for h in grid.hop_counts():
            rtt = grid.avg(h, V.RATE, False, 1, "rtt")
            if rtt is not None:
                out[(value, h)] = rtt
    return out


def section_lines(records: Sequence[Mapping[str, Any]], grid: Sequence[Mapping[str, Any]]
                  ) -> List[str]:
    """The reading's part of a report or of the paper page: its records beside the grid's
    runs of the same points (if given)."""
    ok = [r for r in records if r.get("status") == "ok" and delay_of(r)]
    if not ok:
        return ["No run of the host-latency reading is stored yet.", ""]
    both = ok + [r for r in control_records(grid, ok) if r.get("status") == "ok"]
    values = sorted({delay_of(r) for r in ok})
    windows = sorted({M.window_label(A.param(r, "policy.rwnd_clamp")) for r in ok})
    control = ("beside the grid's own runs of the same points (000_map, no latency)"
               if len(both) > len(ok) else "(the grid's runs, the control, not given)")
    rtts = rtt_rows(both)
    out = ["The default layout's 3- and 4-hop paths at 5.5 Mbit/s, RTS/CTS off and on, with "
           "every packet leaving a radio held " + ", ".join(f"{v:g}" for v in values)
           + " ms before the driver gets it (`policy.tx_delay`: netem delay on every radio's "
           "egress, sent and forwarded packets alike), " + control + "; windows measured: "
           + ", ".join(windows) + "; one 20 s BIC flow per point. RTS/CTS on over off reads "
           "as claim 5 does (3 hops: means over the windows; 4 hops: best averages).", "",
           "What TCP got:", ""] + V.table_lines(both, TX_DELAY)
    late = collision_lines(both)
    if late:
        out += ["", "Collisions at the path's receivers (the medium's counters; a collision "
                "hit only by a later frame is one a CTS sent before the DATA holds back):",
                ""] + late
    if rtts:
        out += ["", "RTT at a 1-segment window, RTS/CTS off (ms): " + "; ".join(
            f"{v:g} ms, {h} hops: {rtt:.0f}" for (v, h), rtt in rtts.items()) + "."]
    return out + ["", "The claims that differ on the default layout, judged per latency "
                  "(criteria as in the grid's, restricted to these paths and rate):", ""] \
        + V.claim_lines(both, TX_DELAY) + ["", V.verdict_line(both, TX_DELAY), ""]
