"""``harness report RESULTS_DIR``: a Markdown page with mean ± CI tables and figures."""
from __future__ import annotations

import argparse
from typing import Any

from harness.plot import FORMATS
from harness.report import write_report


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "report", help="write a Markdown report of a results directory",
        description="Tables of mean ± 95% CI per sweep point for throughput and RTT, the "
                    "figures, the environment and failed runs.")
    p.add_argument("results", metavar="RESULTS_DIR", help="an experiment's output directory")
    p.add_argument("-o", "--output", metavar="FILE", help="default RESULTS_DIR/report.md")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="png", help="figure format")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    print(write_report(args.results, args.output, fmt=args.fmt))
    return 0
