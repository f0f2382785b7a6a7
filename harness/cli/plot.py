"""``harness plot RESULTS_DIR``: a metric against the swept parameter, one line per group."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from harness.analysis.plot import FORMATS, plot_dir
from harness.experiment.results import METRICS

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "plot", help="plot throughput or RTT of a results directory",
        description="Plot METRIC (mean, 95% CI error bars) against a swept parameter, one line "
                    "per group. Defaults: x = first swept key, groups = the other swept keys.")
    p.add_argument("results", metavar="RESULTS_DIR", help="an experiment's output directory")
    p.add_argument("--x", metavar="PARAM", help="parameter path for the x axis (e.g. topology.hops)")
    p.add_argument("--group", metavar="PARAM",
                   help="parameter path(s), comma-separated, one line per value; 'none' for one line")
    p.add_argument("--metric", choices=list(METRICS), default="throughput")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="png")
    p.add_argument("-o", "--output", metavar="FILE", help="image file (default RESULTS_DIR/METRIC.FORMAT)")
    p.set_defaults(func=cmd_plot)


def cmd_plot(args: argparse.Namespace) -> int:
    path = plot_dir(args.results, x=args.x, group=args.group, metric=args.metric,
                    fmt=args.fmt, output=args.output)
    print(path)
    return 0
