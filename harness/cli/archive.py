"""``harness archive pack|unpack``: finished results in a few compressed files, and back.

``pack RESULTS_DIR ARCHIVE_DIR`` puts a finished results directory's records into
``ARCHIVE_DIR`` (one gzip JSON-lines file, see ``harness.experiment.archive``);
``harness report ARCHIVE_DIR`` reads it as it would the directory. ``unpack ARCHIVE_DIR DIR``
gives back a results directory that ``harness run FILE --output DIR`` resumes.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from harness.experiment import archive

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "archive", help="pack a finished results directory into compressed files, or unpack it",
        description="Pack: every run record of RESULTS_DIR into ARCHIVE_DIR/runs.jsonl.gz (set-"
                    "aside records into kept.jsonl.gz), with the experiment copy and plan; "
                    "`harness report ARCHIVE_DIR` then writes the report into the reports "
                    "directory. Unpack: a results directory again, for `harness run` to resume.")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    pk = sub.add_parser("pack", help="pack RESULTS_DIR into ARCHIVE_DIR")
    pk.add_argument("results", metavar="RESULTS_DIR", help="output directory of `harness run`")
    pk.add_argument("archive", metavar="ARCHIVE_DIR", help="where the packed files go")
    pk.add_argument("--reports", metavar="DIR",
                    help="where `harness report ARCHIVE_DIR` writes report.md and figures "
                         "(default RESULTS_DIR)")
    pk.add_argument("--remove", action="store_true",
                    help="after the packed files read back equal, delete the records, the "
                         "experiment copy and the plan from RESULTS_DIR (reports stay)")
    pk.set_defaults(func=cmd_pack)
    up = sub.add_parser("unpack", help="write ARCHIVE_DIR back as a results directory DIR")
    up.add_argument("archive", metavar="ARCHIVE_DIR")
    up.add_argument("results", metavar="DIR", help="a new results directory")
    up.set_defaults(func=cmd_unpack)


def cmd_pack(args: argparse.Namespace) -> int:
    info = archive.pack(args.results, args.archive, reports=args.reports, remove=args.remove)
    print(f"{args.archive}: {info['runs']} run records, {info['kept']} set aside; reports go "
          f"to {archive.reports_dir(args.archive)}"
          + (f"; records removed from {args.results}" if args.remove else ""))
    return 0


def cmd_unpack(args: argparse.Namespace) -> int:
    n = archive.unpack(args.archive, args.results)
    print(f"{args.results}: {n} run records; `harness run FILE --output {args.results}` "
          "resumes it")
    return 0
