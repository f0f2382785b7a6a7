"""Report sections per paper: the paper's figures from our records, the claim table with
our numbers and the difference, the regimes side by side, and why we may differ."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List

from harness.papers import analysis as A
from harness.papers import paper001, paper004
from harness.papers.claims import comparison_table

OUT_OF_SCOPE = ("TCP-DCA and TCP-TDA (paper 004) and the mobile-MANET evaluation of paper 001 "
                "(random waypoint, DSR, 5-25 flows) are out of scope: the first need a modified "
                "kernel (receiver-side ACK thinning with a cwnd TCP option), the second "
                "mobility and a reactive routing daemon.")


def _figures_ok() -> bool:
    from harness.analysis.plot import have_matplotlib
    return have_matplotlib()


def _link(path: Path, report_path: Path, alt: str) -> str:
    return f"![{alt}]({os.path.relpath(path, Path(report_path).parent)})"


def render(key: str, rs: Any, report_path: Path, fmt: str = "png") -> str:
    fig_dir = Path(report_path).parent / f"{Path(report_path).stem}-figures"
    out = [f"## Paper {key}: comparison with the paper", ""]
    if key == "001":
        out += _section_001(rs, fig_dir, Path(report_path), fmt)
    else:
        out += _section_004(rs, fig_dir, Path(report_path), fmt)
    out += ["### Out of scope", "", OUT_OF_SCOPE, ""]
    return "\n".join(out)


def _section_001(rs: Any, fig_dir: Path, report: Path, fmt: str) -> List[str]:
    recs = rs.ok
    out: List[str] = []
    if rs.name.startswith("paper001_adaptive_vs_fixed"):
        return paper001.side_section(rs)[2:] + ["### Why we may differ", ""] \
            + paper001.why_differ() + [""]
    if rs.name.startswith("paper001_adaptive"):
        out += ["Adaptive window limit by the paper's table (RTHC = 2h on these chains); "
                "compare with the best fixed limit of the CWL sweep's report.", ""]
        out += A.table_lines(A.collect(recs, "topology.hops", A.packets_per_s), "hops",
                             "packets/s") + [""]
        return out + ["### Why we may differ", ""] + paper001.why_differ() + [""]
    regimes = paper001.regimes_present(recs)
    if _figures_ok() and regimes:
        panels = [(f"{paper001.REGIMES[d]}",
                   {f"{h} hop{'s' if h > 1 else ''}": s
                    for h, s in paper001.per_hop(recs, d).items()}) for d in regimes]
        path = A_fig(fig_dir, "paper001_packets_vs_limit", fmt)
        from harness.papers.figures import achievable_figure, lines_figure
        lines_figure(panels, path, xlabel="window limit (packets)",
                     ylabel="delivered packets per second",
                     note="dashed: no window limit")
        out += ["Delivered packets against the window limit, one line per chain length "
                "(paper 001 Fig. 2; the paper counts packets over 1000 s, we show packets/s):",
                "", _link(path, report, "packets vs limit"), ""]
        relative = [(title, {label: A.relative_to_best(s) for label, s in lines.items()})
                    for title, lines in panels]
        path_rel = A_fig(fig_dir, "paper001_relative_vs_limit", fmt)
        lines_figure(relative, path_rel, xlabel="window limit (packets)",
                     ylabel="packets/s / best of the chain", ref_y=0.95,
                     note="dashed: no window limit; dotted: 95 % of the best (achievable window)")
        out += ["The same, each chain divided by its best mean, so that every chain's shape shows "
                "on one scale; the first point on or above the dotted line is the achievable "
                "window:", "", _link(path_rel, report, "relative packets vs limit"), ""]
        path2 = A_fig(fig_dir, "paper001_achievable_vs_rthc", fmt)
        achievable_figure({paper001.REGIMES[d]: paper001.achievable(recs, d) for d in regimes},
                          path2)
        out += ["Achievable window (smallest limit reaching 95% of the best mean) against the "
                "round-trip hop count, with the paper's k = 1/5 (Fig. 4):", "",
                _link(path2, report, "achievable window"), ""]
    out += ["### The paper's numbers beside ours (paper's regime: one ACK per segment)", ""]
    out += comparison_table(paper001.rows(recs)) + [""]
    if len(regimes) == 2:
        out += ["### Regimes side by side", "",
                "| hops | table limit | best limit, ACK every segment | best limit, delayed ACK "
                "| achievable (95%), ACK every segment | achievable (95%), delayed ACK |",
                "|---|---|---|---|---|---|"]
        q, d = paper001.per_hop(recs, False), paper001.per_hop(recs, True)
        aq, ad = paper001.achievable(recs, False), paper001.achievable(recs, True)
        for h in sorted(set(q) | set(d)):
            out.append(f"| {h} | {paper001.TABLE_BY_HOPS.get(h, '-')} | "
                       f"{A.best_limited(q.get(h, {})) or '-'} | {A.best_limited(d.get(h, {})) or '-'} | "
                       f"{aq.get(h) or '-'} | {ad.get(h) or '-'} |")
        out.append("")
    for d in regimes:
        out += [f"### Packets/s per limit, {paper001.REGIMES[d]}", ""]
        for h, s in paper001.per_hop(recs, d).items():
            best = A.best_limited(s)
            out += [f"{h} hop{'s' if h > 1 else ''}:", ""]
            out += A.table_lines(s, "limit", "packets/s", {best: "(best)"}) + [""]
    return out + ["### Why we may differ", ""] + paper001.why_differ() + [""]


def A_fig(fig_dir: Path, stem: str, fmt: str) -> Path:
    return fig_dir / f"{stem}.{fmt}"


def _section_004(rs: Any, fig_dir: Path, report: Path, fmt: str) -> List[str]:
    recs = rs.ok
    out: List[str] = []
    figs = _figures_ok()
    from harness.papers.figures import lines_figure
    name = rs.name
    if name.startswith("paper004_optimal_window"):
        regimes = paper001.regimes_present(recs)
        if figs and regimes:
            path = A_fig(fig_dir, "paper004_throughput_vs_limit", fmt)
            lines_figure([(paper001.REGIMES[d], paper004.window_lines(recs, d)) for d in regimes],
                         path, xlabel="window limit (packets)", ylabel="goodput (kbit/s)",
                         note="dashed: no window limit")
            out += ["Goodput against the window limit (paper 004 §3):", "",
                    _link(path, report, "throughput vs limit"), ""]
        for d in regimes:
            out += [f"Best limit, {paper001.REGIMES[d]}: "
                    + ", ".join(f"{h} hops -> {w}" for h, w in
                                paper004.optimal_windows(recs, d).items()), ""]
    if name.startswith("paper004_ack_hops"):
        lines = paper004.ack_lines(recs)
        if figs and lines:
            path = A_fig(fig_dir, "paper004_throughput_vs_hops", fmt)
            lines_figure([("throughput vs hop count per ACK scheme", lines)], path,
                         xlabel="hops", ylabel="goodput (kbit/s)")
            out += ["Goodput against hop count per ACK scheme (paper 004 Fig. 3; stock-kernel "
                    "schemes only):", "", _link(path, report, "throughput vs hops"), ""]
        for label, s in lines.items():
            out += [f"{label}:", ""] + A.table_lines(s, "hops", "kbit/s") + [""]
    if name.startswith("paper004_flows"):
        fl = paper004.flows_per_flow(recs)
        if figs and fl:
            path = A_fig(fig_dir, "paper004_per_flow_vs_flows", fmt)
            lines_figure([("per-flow goodput vs concurrent flows",
                           {("TCP-DA" if k else "regular TCP"): s for k, s in fl.items()})],
                         path, xlabel="concurrent flows", ylabel="goodput per flow (kbit/s)")
            out += [_link(path, report, "per-flow throughput"), ""]
        for k, s in fl.items():
            out += [f"{'TCP-DA (delayed ACK)' if k else 'regular TCP'}:", ""]
            out += A.table_lines(s, "flows", "kbit/s per flow") + [""]
    if name.startswith("paper004_packet_size"):
        table = paper004.packet_size_table(recs)
        if table:
            out += ["| hops | packets/s, MSS 1012 | packets/s, MSS 88 | ratio | paper ratio |",
                    "|---|---|---|---|---|"]
            for h in sorted(table):
                big, small = table[h].get(1012), table[h].get(88)
                r = A.ratio(small, big)
                pr = paper004.TABLE1.get(h)
                out.append(f"| {h} | {big or 0:.4g} | {small or 0:.4g} | "
                           f"{f'{r:.2f}' if r else '-'} | "
                           f"{paper004.TABLE1_RATIO[h] if pr else '-'} |")
            out.append("")
    out += ["### The paper's numbers beside ours", "",
            "Rows this experiment does not measure show `-` (see the other paper-004 reports)."]
    out += [""] + comparison_table(paper004.rows(recs)) + [""]
    return out + ["### Why we may differ", ""] + paper004.why_differ() + [""]
