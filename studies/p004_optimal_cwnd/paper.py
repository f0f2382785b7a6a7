"""Paper 004: B. Chen, I. Marsic, R. Miller, "Issues and Improvements in TCP Performance over
Multihop Wireless Networks". Claims (papers.md 004.3-004.5; catalogue E8, E18-E22) and the
report rows our experiments (studies/p004_optimal_cwnd/experiments/004_*.yaml) fill in.

Only two of the paper's four ACK schemes exist in a stock kernel: regular TCP (one ACK per
segment = quickack) and TCP-DA (delayed ACK = Linux's default). TCP-DCA and TCP-TDA need a
modified kernel and are out of scope; their rows say so.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence

from harness.analysis import records as A
from harness.medium import analytic
from harness.study.claims import Claim, Paper, Row, comparison_table, verdict_band
from harness.study.section import fig_path, figures_ok, link
from studies.p004_optimal_cwnd.record_keys import RECORD_KEYS as RECORD_KEYS  # the records keep what is read

if TYPE_CHECKING:
    from harness.experiment.results import ResultSet

OPT = "studies/p004_optimal_cwnd/experiments/004_optimal_window.yaml"
ACKS = "studies/p004_optimal_cwnd/experiments/004_ack_hops.yaml"
FLOWS = "studies/p004_optimal_cwnd/experiments/004_flows.yaml"
SIZE = "studies/p004_optimal_cwnd/experiments/004_packet_size.yaml"
TABLE1 = {6: (4212, 5184), 8: (3529, 4255), 10: (2359, 2698), 12: (1947, 2969)}
#: The ratio row as printed (2969 / 1947 = 1.525 is printed 1.53).
TABLE1_RATIO = {6: 1.23, 8: 1.21, 10: 1.14, 12: 1.53}
DA_OVER_TCP = {1: 23, 2: 23, 3: 22}   # derived from TDA over DA and over TCP (§6.2)

CLAIMS: List[Claim] = [
    Claim("004.opt_7", "optimal window, 7-hop chain", 3, "packets", "§3 text", experiment=OPT),
    Claim("004.opt_10", "optimal window, 10-hop chain", [3, 4], "packets", "§3 text",
          experiment=OPT),
    Claim("004.band", "optimal window / hops", [1 / 3, 1 / 2], "", "§3 (n/3 <= opt < n/2)",
          experiment=OPT),
    Claim("004.capture_x", "capture distance x in ((400-x)/(200+x))^4 = 10", 15.82, "m",
          "§3 text", note="solving the printed equation gives 15.96 m (derived)"),
    Claim("004.t_overhead", "RTS+CTS+MAC ACK+3 SIFS airtime at 1 Mbit/s basic rate", 414, "µs",
          "§4 text", note="paper ignores PLCP preambles; ours includes 192 µs per PPDU"),
    Claim("004.t_ack", "airtime of a 40-byte TCP ACK exchange at 11 Mbit/s", 443, "µs", "§4 text"),
    Claim("004.t_data", "airtime of a 1040-byte data exchange at 11 Mbit/s", 1170, "µs",
          "§4 text"),
    Claim("004.ack_cost", "TCP ACK airtime / data airtime", 443 / 1170, "", "§4 (derived)",
          kind="derived"),
    *[Claim(f"004.t1_ratio_{h}", f"packet-rate ratio 40 B / 1040 B, {h} hops",
            TABLE1_RATIO[h], "", "§4 Table 1", experiment=SIZE) for h in TABLE1],
    *[Claim(f"004.t1_large_{h}", f"1040-byte packets delivered in 100 s, {h} hops", a, "",
            "§4 Table 1", experiment=SIZE) for h, (a, _) in TABLE1.items()],
    *[Claim(f"004.da_gain_{h}", f"TCP-DA over regular TCP, {h} hop{'s' if h > 1 else ''}", g,
            "%", "§6.2 (derived from TDA gains)", kind="derived", experiment=ACKS)
      for h, g in DA_OVER_TCP.items()],
    Claim("004.da_13", "TCP-DA throughput, 13-hop chain, 1 flow", 242, "kbit/s", "Table 2",
          experiment=ACKS),
    Claim("004.tda_13", "TCP-TDA / TCP-DCA throughput, 13 hops", [478, 368], "kbit/s",
          "Table 2", note="need a modified kernel: out of scope"),
    Claim("004.flows", "all schemes worse with more flows (1, 2, 6)", "yes", "",
          "§6.2 text", experiment=FLOWS),
    Claim("004.nonmonotone", "throughput not monotone in hop count (4-29 hops)", "yes", "",
          "§6.2, Fig. 3 text", experiment=ACKS),
    Claim("004.tda_gains", "TDA over DCA / DA / TCP, 1 flow, 4-29 hops (average)",
          [35, 68, 139], "%", "§6.2 text", note="TDA/DCA out of scope"),
]

#: Shown at the end of the report section and the page.
OUT_OF_SCOPE = ("TCP-DCA and TCP-TDA are out of scope: they need a modified kernel (receiver-side "
                "ACK thinning with a cwnd TCP option).")

#: The two ACK regimes of the window sweeps (as in study p001_cwl).
REGIMES = {False: "one ACK per segment (paper's sink, quickack)",
           True: "Linux delayed ACK"}


def regimes_present(records: Sequence[Mapping[str, Any]]) -> List[bool]:
    found = {bool(A.param(r, "policy.delayed_ack")) for r in records if r.get("status") == "ok"}
    return [x for x in (False, True) if x in found]


PAPER = Paper("004", "Chen, Marsic, Miller: Issues and Improvements in TCP Performance over "
              "Multihop Wireless Networks", CLAIMS,
              {"paper004_optimal_window": OPT, "paper004_ack_hops": ACKS,
               "paper004_flows": FLOWS, "paper004_packet_size": SIZE})
#: Experiments the paper page's claim rows are computed from (by name prefix): all of them.
#: The experiments (of records/) the study's page is made from, in its order.
PAGE_FROM = ("004_ack_hops", "004_flows", "004_packet_size", "004_optimal_window",)

ROWS_FROM = ("paper004_",)


def our_airtimes() -> Dict[str, float]:
    """The same exchanges under the medium's airtime model (harness.medium.analytic, long preamble,
    1 Mbit/s control rate, TCP/IP 52 B + MAC/LLC 36 B headers): model numbers, not measured."""
    ex_data = analytic.exchange("b", 11, 1000 + 52, rts=True, basic=[1])
    ex_ack = analytic.exchange("b", 11, 52, rts=True, basic=[1])
    overhead = ex_data.t_rts + ex_data.t_cts + ex_data.t_ack + 3 * ex_data.tm.sifs
    return {"overhead": overhead, "ack": overhead + ex_ack.t_data,
            "data": overhead + ex_data.t_data}


def capture_x() -> float:
    """Solve ((400 - x) / (200 + x))^4 = 10 (the paper prints 15.82)."""
    r = 10 ** 0.25
    return (400 - 200 * r) / (1 + r)


def rows(records: Sequence[Mapping[str, Any]]) -> List[Row]:
    """Claim rows with our values where ``records`` measure them."""
    c = PAPER.claim
    out: List[Row] = []
    opt = optimal_windows(records, delayed=False)
    for key, h in (("004.opt_7", 7), ("004.opt_10", 10)):
        w = opt.get(h)
        band = [h / 3 - 1, h / 2 + 1]
        out.append(Row(c(key), w, "argmax of mean goodput over limits, one ACK per segment",
                       verdict_band(band, w) + " (n/3..n/2 ± 1)" if w is not None
                       else "not in these results"))
    ratios = {h: w / h for h, w in opt.items() if w is not None}
    out.append(Row(c("004.band"), [round(x, 2) for x in ratios.values()] if ratios else None,
                   ", ".join(f"{h} hops" for h in ratios),
                   ("agrees" if all(1 / 3 - 1 / h <= r <= 1 / 2 + 1 / h
                                    for h, r in ratios.items()) else "differs")
                   if ratios else "not in these results"))
    out.append(Row(c("004.capture_x"), round(capture_x(), 2), "solved exactly", "analytic"))
    air = our_airtimes()
    out.append(Row(c("004.t_overhead"), air["overhead"], "medium's airtime model", "model"))
    out.append(Row(c("004.t_ack"), air["ack"], "medium's airtime model", "model"))
    out.append(Row(c("004.t_data"), air["data"], "medium's airtime model", "model"))
    out.append(Row(c("004.ack_cost"), round(air["ack"] / air["data"], 3),
                   "PLCP preambles make small frames relatively dearer", "model"))
    size = packet_size_table(records)
    for h in TABLE1:
        got = size.get(h, {})
        r = A.ratio(got.get(88), got.get(1012))
        out.append(Row(c(f"004.t1_ratio_{h}"), round(r, 2) if r else None,
                       "mean packets/s, MSS 88 (76 B payload) / MSS 1012",
                       "" if r is None else ("agrees" if r < (1052 / 128) / 3 else "differs")))
    for h in TABLE1:
        big = size.get(h, {}).get(1012)
        out.append(Row(c(f"004.t1_large_{h}"), round(big * 100) if big else None,
                       "packets/s x 100, 1000-byte payloads", "" if big is None else "compare order of magnitude"))
    da = da_gains(records)
    for h in DA_OVER_TCP:
        g = da.get(h)
        out.append(Row(c(f"004.da_gain_{h}"), round(g, 1) if g is not None else None,
                       "mean goodput delayed ACK / quickack - 1",
                       "" if g is None else ("agrees in sign" if g > 0 else "differs")))
    thirteen = A.means(A.collect(records, "topology.hops", A.throughput_kbps,
                                 where={"policy.delayed_ack": True, "policy.cwnd_clamp": None}))
    v = thirteen.get(13) if _is_ack_sweep(records) else None
    out.append(Row(c("004.da_13"), round(v) if v else None, "delayed ACK, unlimited window",
                   "" if v is None else "compare"))
    out.append(Row(c("004.tda_13"), None, "", "out of scope (modified kernel)"))
    fl = flows_per_flow(records)
    if fl:
        falls = all(_falls(s) for s in fl.values())
        out.append(Row(c("004.flows"), "; ".join(
            f"{'DA' if k else 'TCP'}: " + ", ".join(f"{n}->{v:.0f}" for n, v in A.means(s).items())
            for k, s in fl.items()), "kbit/s per flow by flow count",
            "agrees" if falls else "differs"))
    else:
        out.append(Row(c("004.flows"), None, "", "not in these results"))
    rises = nonmonotone_steps(records)
    out.append(Row(c("004.nonmonotone"), rises if rises is not None else None,
                   "hop counts >= 4 where throughput rises over the previous one",
                   "" if rises is None else ("agrees" if rises else "differs (monotone)")))
    out.append(Row(c("004.tda_gains"), None, "", "out of scope (modified kernel)"))
    return out


def _is_ack_sweep(records: Sequence[Mapping[str, Any]]) -> bool:
    return any(A.param(r, "policy.cwnd_clamp") is None and A.param(r, "policy.mss") is None
               for r in records if r.get("status") == "ok")


def _falls(series: A.Series) -> bool:
    m = A.means(series)
    xs = sorted(m)
    return all(m[b] < m[a] for a, b in zip(xs, xs[1:]))


def optimal_windows(records: Sequence[Mapping[str, Any]], delayed: bool) -> Dict[int, Optional[int]]:
    out = {}
    for h, recs in sorted(A.groups_by(records, "topology.hops").items()):
        s = A.collect(recs, "policy.cwnd_clamp", A.throughput_kbps,
                      where={"policy.delayed_ack": delayed})
        if len([x for x in s if x is not None]) >= 3:
            out[h] = A.best_limited(s)
    return out


def window_lines(records: Sequence[Mapping[str, Any]], delayed: bool) -> Dict[str, A.Series]:
    return {f"{h} hops": A.collect(recs, "policy.cwnd_clamp", A.throughput_kbps,
                                   where={"policy.delayed_ack": delayed})
            for h, recs in sorted(A.groups_by(records, "topology.hops").items())}


def packet_size_table(records: Sequence[Mapping[str, Any]]) -> Dict[int, Dict[int, float]]:
    out: Dict[int, Dict[int, float]] = {}
    for h, recs in A.groups_by(records, "topology.hops").items():
        for mss, vals in A.collect(recs, "policy.mss", A.packets_per_s).items():
            if mss is not None:
                out.setdefault(h, {})[mss] = sum(vals) / len(vals)
    return out


def ack_lines(records: Sequence[Mapping[str, Any]]) -> Dict[str, A.Series]:
    """Throughput vs hop count per ACK scheme (unlimited window only)."""
    names = {True: "TCP-DA (Linux delayed ACK)", False: "regular TCP (ACK every segment)"}
    out = {}
    for delayed, name in names.items():
        s = A.collect(records, "topology.hops", A.throughput_kbps,
                      where={"policy.delayed_ack": delayed, "policy.cwnd_clamp": None,
                             "policy.mss": None, "flows[0].count": 1})
        if s:
            out[name] = s
    return out


def da_gains(records: Sequence[Mapping[str, Any]]) -> Dict[int, float]:
    lines = ack_lines(records)
    if len(lines) < 2:
        return {}
    da, tcp = (A.means(s) for s in lines.values())
    return {h: (da[h] / tcp[h] - 1) * 100 for h in da if h in tcp and tcp[h]}


def flows_per_flow(records: Sequence[Mapping[str, Any]]) -> Dict[bool, A.Series]:
    out = {}
    for delayed in (True, False):
        s = A.collect(records, "flows[0].count", A.per_flow_kbps,
                      where={"policy.delayed_ack": delayed})
        if len(s) >= 2:
            out[delayed] = s
    return out


def nonmonotone_steps(records: Sequence[Mapping[str, Any]]) -> Optional[int]:
    lines = ack_lines(records)
    if not lines:
        return None
    rises = 0
    counted = False
    for s in lines.values():
        m = A.means(s)
        xs = [h for h in sorted(m) if h >= 4]
        counted = counted or len(xs) >= 2
        rises += sum(1 for a, b in zip(xs, xs[1:]) if m[b] > m[a])
    return rises if counted else None


def why_differ() -> List[str]:
    return [
        "- **Airtime.** The paper's §4 arithmetic leaves out the 192 µs PLCP preamble+header "
        "every 802.11b PPDU carries; the medium includes it (as ns-2's MAC did), so a TCP ACK "
        "exchange costs a larger share of a data exchange here (model row above). Expect "
        "small packets to gain even less than in Table 1.",
        "- **Small packets.** Linux will not send 40-byte segments: the smallest is 76 bytes of "
        "payload (TCP_MIN_MSS 88 minus timestamps), a 128-byte IP packet; the size ratio to the "
        "1052-byte packets is 8.2, not 26.",
        "- **ACK schemes.** Only regular TCP (quickack) and TCP-DA (Linux's delayed ACK) exist "
        "in a stock kernel; TCP-DCA and TCP-TDA need kernel changes and are out of scope.",
        "- **Routing and queues.** Static routes instead of AODV (no route breaks after MAC "
        "failures, which in ns-2 also shrink cwnd); Linux queues above the medium's 50-frame "
        "interface queue.",
        "- **Flow placement.** The paper does not say where its 6 flows run; ours all run end "
        "to end.",
    ]


def report_section(rs: ResultSet, fig_dir: Path, report: Path, fmt: str) -> List[str]:
    """The paper's section of an experiment's report (``harness report``): figures in the
    paper's layout, the claim table with our numbers, why we may differ."""
    recs = rs.ok
    out: List[str] = []
    figs = figures_ok()
    from harness.study.figures import lines_figure
    name = rs.name
    if name.startswith("paper004_optimal_window"):
        regimes = regimes_present(recs)
        if figs and regimes:
            path = fig_path(fig_dir, "paper004_throughput_vs_limit", fmt)
            lines_figure([(REGIMES[d], window_lines(recs, d)) for d in regimes],
                         path, xlabel="window limit (packets)", ylabel="goodput (kbit/s)",
                         note="dashed: no window limit")
            out += ["Goodput against the window limit (paper 004 §3):", "",
                    link(path, report, "throughput vs limit"), ""]
        for d in regimes:
            out += [f"Best limit, {REGIMES[d]}: "
                    + ", ".join(f"{h} hops -> {w}" for h, w in
                                optimal_windows(recs, d).items()), ""]
    if name.startswith("paper004_ack_hops"):
        lines = ack_lines(recs)
        if figs and lines:
            path = fig_path(fig_dir, "paper004_throughput_vs_hops", fmt)
            lines_figure([("throughput vs hop count per ACK scheme", lines)], path,
                         xlabel="hops", ylabel="goodput (kbit/s)")
            out += ["Goodput against hop count per ACK scheme (paper 004 Fig. 3; stock-kernel "
                    "schemes only):", "", link(path, report, "throughput vs hops"), ""]
        for label, s in lines.items():
            out += [f"{label}:", ""] + A.table_lines(s, "hops", "kbit/s") + [""]
    if name.startswith("paper004_flows"):
        fl = flows_per_flow(recs)
        if figs and fl:
            path = fig_path(fig_dir, "paper004_per_flow_vs_flows", fmt)
            lines_figure([("per-flow goodput vs concurrent flows",
                           {("TCP-DA" if k else "regular TCP"): s for k, s in fl.items()})],
                         path, xlabel="concurrent flows", ylabel="goodput per flow (kbit/s)")
            out += [link(path, report, "per-flow throughput"), ""]
        for k, s in fl.items():
            out += [f"{'TCP-DA (delayed ACK)' if k else 'regular TCP'}:", ""]
            out += A.table_lines(s, "flows", "kbit/s per flow") + [""]
    if name.startswith("paper004_packet_size"):
        table = packet_size_table(recs)
        if table:
            out += ["| hops | packets/s, MSS 1012 | packets/s, MSS 88 | ratio | paper ratio |",
                    "|---|---|---|---|---|"]
            for h in sorted(table):
                big, small = table[h].get(1012), table[h].get(88)
                r = A.ratio(small, big)
                pr = TABLE1.get(h)
                out.append(f"| {h} | {big or 0:.4g} | {small or 0:.4g} | "
                           f"{f'{r:.2f}' if r else '-'} | "
                           f"{TABLE1_RATIO[h] if pr else '-'} |")
            out.append("")
    out += ["### The paper's numbers beside ours", "",
            "Rows this experiment does not measure show `-` (see the other paper-004 reports)."]
    out += [""] + comparison_table(rows(recs)) + [""]
    return out + ["### Why we may differ", ""] + why_differ() + [""]
