"""``harness archive pack|unpack``: finished results into a folder's record file, and back.

``pack FOLDER RESULTS_DIR...`` puts the records of results directories into FOLDER's record file
of their engine version (``harness.experiment.archive``); FOLDER a study's folder: into its
``records/``, pruned to the key paths its readings read (its ``RECORD_KEYS``).
``harness report FOLDER/NAME`` reads an experiment as it would the directory;
``unpack FOLDER/NAME DIR`` gives back a results directory that ``harness run`` resumes.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness.experiment import archive

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "archive", help="pack finished results directories into a record file, or unpack one",
        description="Pack: the run records of each RESULTS_DIR (an experiment, named as the "
                    "directory), with its experiment copy, plan and set-aside records, into "
                    "FOLDER/<engine>-<kernel>.jsonl.xz, replacing that file (its other "
                    "experiments stay). Unpack: an experiment FOLDER/NAME as a results "
                    "directory again, for `harness run` to resume.")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    pk = sub.add_parser("pack", help="pack RESULTS_DIR... into FOLDER's record file")
    pk.add_argument("folder", metavar="FOLDER",
                    help="where the record file goes; a study's folder (studies/NAME): its "
                         "records/, each record pruned to what the study reads (RECORD_KEYS)")
    pk.add_argument("results", metavar="RESULTS_DIR", nargs="+",
                    help="output directories of `harness run`")
    pk.add_argument("--reports", metavar="DIR",
                    help="`harness report FOLDER/NAME` writes into DIR/NAME (default: where "
                         "NAME's reports went before, else RESULTS_DIR)")
    pk.set_defaults(func=cmd_pack)
    up = sub.add_parser("unpack", help="write experiment FOLDER/NAME back as a results directory")
    up.add_argument("archive", metavar="FOLDER/NAME")
    up.add_argument("results", metavar="DIR", help="a new results directory")
    up.set_defaults(func=cmd_unpack)


def cmd_pack(args: argparse.Namespace) -> int:
    from harness.study import study_folder, study_module
    folder = Path(args.folder)
    if folder.name == "records" and study_folder(folder.parent):
        folder = folder.parent
    key, keep = study_folder(folder), None
    if key is not None:
        folder, keep = folder / "records", getattr(study_module(key), "RECORD_KEYS", None)
    path = archive.pack(folder, args.results, keep=keep, reports=args.reports)
    print(f"{path}: {len(args.results)} experiment(s) packed"
          + (f", records pruned to study {key}'s RECORD_KEYS" if keep is not None else ""))
    return 0


def cmd_unpack(args: argparse.Namespace) -> int:
    n = archive.unpack(args.archive, args.results)
    print(f"{args.results}: {n} run records; `harness run FILE --output {args.results}` "
          "resumes it")
    return 0
