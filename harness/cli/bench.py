"""``harness bench``: figures of the medium, measured (not timed tests).

- ``harness bench medium [--json]``: the fidelity report: one saturated UDP sender over one
  hop through real Linux and mediumd, goodput against harness.medium.analytic, per PHY/rate
  (``udp_1hop_<phy>_<rate>``, variants ``_rts``/``_sp``). Runs in the VM when needed.
- ``harness bench core``: events per second of the simulation core (bench/medium_core.py).
- ``harness bench e2e``: lag percentiles and mediumd's CPU share during a saturated
  54 Mbit/s TCP flow (bench/medium_e2e.py).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import TYPE_CHECKING, List

from harness.cli.options import add_clock_option
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.cli import Subparsers
    from harness.medium.fidelity import Check

#: The report's default checks: every 802.11b rate (long preamble, basic {1, 2}), the
#: mandatory and top 802.11g ERP-OFDM rates (short slot, basic {6, 12, 24}), and variants.
DEFAULT_CHECKS = ("b:1", "b:2", "b:5.5", "b:11", "b:11:rts",
                  "g:6", "g:12", "g:24", "g:54", "g:54:rts")


def register(sub: Subparsers) -> None:
    p = sub.add_parser("bench", help="measure the medium: fidelity report, core speed, lag",
                       description=__doc__.split("\n\n")[0])
    bsub = p.add_subparsers(dest="bench_command", metavar="BENCH")
    bsub.required = True
    m = bsub.add_parser("medium", help="fidelity report: one-hop UDP goodput vs analytic DCF")
    m.add_argument("--json", action="store_true", help="one JSON object with a 'checks' list")
    m.add_argument("--checks", default=",".join(DEFAULT_CHECKS),
                   help="comma list of PHY:RATE[:rts|:sp] (default: %(default)s)")
    m.add_argument("--duration", type=float, default=10.0, help="seconds per flow (default 10)")
    m.add_argument("--tolerance", type=float, default=5.0, help="percent (default 5)")
    add_clock_option(m)
    m.set_defaults(func=cmd_medium)
    c = bsub.add_parser("core", help="simulation core events/s (bench/medium_core.py)")
    c.add_argument("args", nargs="*", help="passed to bench/medium_core.py (after --)")
    c.set_defaults(func=cmd_core)
    e = bsub.add_parser("e2e", help="lag and mediumd CPU during 54 Mbit/s TCP (bench/medium_e2e.py)")
    e.add_argument("args", nargs="*", help="passed to bench/medium_e2e.py (after --)")
    add_clock_option(e)
    e.set_defaults(func=cmd_e2e)


def parse_check(text: str, duration: float, tolerance: float) -> Check:
    """``g:54:rts`` -> a fidelity Check; errors name the allowed values."""
    from harness.kernel import wireless
    from harness.medium.fidelity import udp_check
    parts = text.strip().split(":")
    if len(parts) not in (2, 3) or parts[0] not in wireless.PHY_MODES:
        raise HarnessError(f"--checks item {text!r} is invalid: allowed PHY:RATE[:rts|:sp] "
                           f"with PHY one of {', '.join(wireless.PHY_MODES)}, e.g. g:54:rts")
    phy = parts[0]
    try:
        rate = float(parts[1])
    except ValueError:
        raise HarnessError(f"--checks item {text!r}: rate {parts[1]!r} is not a number: allowed "
                           + ", ".join(f"{r:g}" for r in wireless.RATES[phy]) + " Mbit/s") from None
    if wireless.check_rate(rate, phy) is None:
        raise HarnessError(f"--checks item {text!r}: a fixed rate is needed (not automatic)")
    variant = parts[2] if len(parts) == 3 else ""
    if variant not in ("", "rts", "sp"):
        raise HarnessError(f"--checks variant {variant!r} in {text!r} is invalid: allowed rts, sp")
    if variant == "sp" and (phy != "b" or rate == 1.0):
        raise HarnessError(f"--checks {text!r}: short preamble exists only for 802.11b 2..11 Mbit/s")
    if variant == "sp":
        # Measured: mac80211 in an IBSS flags every 802.11b frame long-preamble (radiotap
        # flags in mediumd's pcap never carry 0x02); the medium times what the kernel flags,
        # so a short-preamble check would compare long-preamble frames with the short formula.
        raise HarnessError(f"--checks {text!r}: the kernel sends 802.11b with the long preamble "
                           "in an IBSS (no per-frame short-preamble flag reaches the medium); "
                           "allowed variants here: rts")
    return udp_check(phy, rate, rts=variant == "rts", short_preamble=variant == "sp",
                     duration=duration, tolerance_pct=tolerance)


def _argv(args: argparse.Namespace) -> List[str]:
    argv = ["bench", "medium", "--checks", args.checks, "--duration", f"{args.duration:g}",
            "--tolerance", f"{args.tolerance:g}"]
    return argv + (["--json"] if args.json else [])


def cmd_medium(args: argparse.Namespace) -> int:
    checks = [parse_check(c, args.duration, args.tolerance) for c in args.checks.split(",") if c]
    from harness.vm.dispatch import maybe_in_vm
    rc = maybe_in_vm(_argv(args))
    if rc is not None:
        return rc
    from harness.kernel.host import in_vm
    from harness.medium.fidelity import run_check
    for check in checks:
        try:
            run_check(check)
        except HarnessError as err:
            check.ok = False
            check.note = f"error: {err}"
        if not args.json:
            print(row(check), flush=True)
    report = {"report": "medium fidelity, one hop, one saturated UDP sender",
              "where": "vm" if in_vm() else "native",
              "checks": [c.to_dict() for c in checks],
              "ok": all(c.ok for c in checks)}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"\n{sum(1 for c in checks if c.ok)}/{len(checks)} within tolerance")
    return 0 if report["ok"] else 1


def header() -> str:
    return (f"{'check':<22} {'measured':>9} {'expected':>9} {'err%':>7} {'tol%':>5} ok  "
            f"{'lag p50/p99 us':>16}  busy")


_HEADER_PRINTED: List[bool] = []


def row(check: Check) -> str:
    lines = []
    if not _HEADER_PRINTED:
        lines.append(header())
        _HEADER_PRINTED.append(True)
    lag = check.medium.get("lag_us") or {}
    busy = check.medium.get("busy_fraction", {}).get("sta1")
    err = check.error_pct
    lines.append(f"{check.name:<22} {check.measured if check.measured is not None else '-':>9} "
                 f"{check.expected:>9.3f} {err if err is None else f'{err:+.1f}':>7} "
                 f"{check.tolerance_pct:>5g} {'yes' if check.ok else 'NO ':<3} "
                 f"{lag.get('p50', '-'):>7}/{lag.get('p99', '-'):<8} "
                 f"{busy if busy is not None else '-'}"
                 + (f"\n    {check.note}" if check.note else ""))
    return "\n".join(lines)


def _script(name: str, extra: List[str]) -> int:
    from harness.paths import project_file
    path = project_file("bench", name)
    if not path.exists():
        raise HarnessError(f"{path} is missing", hint="it is part of the checkout, not installs")
    extra = extra[1:] if extra[:1] == ["--"] else extra
    return subprocess.call([sys.executable, str(path), *extra])


def cmd_core(args: argparse.Namespace) -> int:
    return _script("medium_core.py", args.args)


def cmd_e2e(args: argparse.Namespace) -> int:
    return _script("medium_e2e.py", args.args)
