"""``harness report RESULTS_DIR``: a Markdown page with mean ± CI tables and figures.

RESULTS_DIR may be an experiment of a record file (``FOLDER/NAME``, ``harness archive pack``):
its records are read from the file and the report goes to the reports directory it names
(results/studies/ for the studies' records). Several directories of one study also write the study's page (its report.md).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness.analysis.plot import FORMATS
from harness.study import write_report

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "report", help="write a Markdown report of a results directory",
        description="Tables of mean ± 95% CI per sweep point for throughput and RTT, the "
                    "figures, the environment and failed runs.")
    p.add_argument("results", metavar="RESULTS_DIR", nargs="+",
                   help="an experiment's output directory, or a packed one (FOLDER/NAME "
                        "of `harness archive pack`); several (all of one study's "
                        "experiments): each gets its report, and the study's page; a study's "
                        "folder (studies/NAME): its page from the records it names")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="default RESULTS_DIR/report.md (a packed experiment: report.md in its "
                        "reports directory); with several directories, the paper's page "
                        "(default: the study's report.md, in its folder)")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="png", help="figure format")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from harness.study import page_records, study_folder
    key = study_folder(Path(args.results[0])) if len(args.results) == 1 else None
    if key is not None:  # a study's folder: its page, from the records it names
        args.results = [str(p) for p in page_records(key)]
    if len(args.results) == 1:
        print(write_report(args.results[0], args.output, fmt=args.fmt))
        return 0
    from harness.experiment.results import load_results
    from harness.study.page import default_output, paper_key, write_summary
    sets = [load_results(Path(d)) for d in args.results]
    paper_key(sets)  # one paper, or an error before anything is written
    output = Path(args.output) if args.output else default_output(sets)
    for rs in sets:
        print(write_report(rs.root, None, fmt=args.fmt))
    print(write_summary(sets, output))
    return 0
