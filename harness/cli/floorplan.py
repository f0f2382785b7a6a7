"""``harness floorplan [CAMPUS]``: a campus from above with its links coloured by delivery ratio."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from topologies.campus import DEFAULT_CAMPUS
from topologies.campus_plan import floorplan

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "floorplan", help="draw a campus (buildings, walls, routers, links by delivery ratio)",
        description="Draw a campus file from above, one panel per rate (2, 5.5, 11 Mbit/s): "
                    "buildings, walls, routers by floor, and every link coloured by the delivery "
                    "ratio of a full-size frame in its worse direction, from the medium's own "
                    "link table (docs/campus.md).")
    p.add_argument("campus", nargs="?", default=DEFAULT_CAMPUS,
                   help=f"a campus name ({DEFAULT_CAMPUS}) or a campus YAML file")
    p.add_argument("--shadowing-seed", type=int, metavar="N",
                   help="another draw of the static shadowing (default: the file's)")
    p.add_argument("--paths", action="store_true", help="mark the links of the file's paths")
    p.add_argument("--format", dest="fmt", choices=("png", "svg"), default="png")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="image file (default: <campus name>-floorplan.FORMAT here)")
    p.set_defaults(func=cmd_floorplan)


def cmd_floorplan(args: argparse.Namespace) -> int:
    print(floorplan(args.campus, args.output, args.fmt, args.shadowing_seed, args.paths))
    return 0
