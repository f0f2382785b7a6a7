"""``harness bench``: figures of the medium, measured (not timed tests).

- ``harness bench medium [--json]``: the fidelity report: one saturated UDP (or TCP) sender
  over one hop through real Linux and mediumd, goodput against harness.medium.analytic, per
  PHY/rate (``udp_1hop_<phy>_<rate>``, variants ``_rts``/``_sp``, ``tcp``), by the checks of
  bench/medium_fidelity.py. Runs in a guest with the uml engine, twice by default: on a quiet host, and
  with every host core saturated by a CPU load the bench starts itself; the two passes are
  printed side by side.
- ``harness bench core``: events per second of the simulation core (bench/medium_core.py).
- ``harness bench engine``: the UML engine's costs (bench/engine.py).
- ``harness bench e2e``: lag percentiles and mediumd's CPU share during a saturated
  54 Mbit/s TCP flow (bench/medium_e2e.py).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Dict, Iterator, List

from harness.cli.options import add_engine_option
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.cli import Subparsers

#: A fidelity check (``Check`` of bench/medium_fidelity.py, loaded by path: no static type).
Check = Any

#: The report's default checks: every 802.11b rate (long preamble, basic {1, 2}), the
#: mandatory and top 802.11g ERP-OFDM rates (short slot, basic {6, 12, 24}), and variants.
DEFAULT_CHECKS = ("b:1", "b:2", "b:5.5", "b:11", "b:11:rts",
                  "g:6", "g:12", "g:24", "g:54", "g:54:rts", "b:11:tcp", "g:54:tcp")
#: Percent by which a check's quiet and loaded goodputs may differ.
LOAD_AGREEMENT_PCT = 1.0
LOADS = ("both", "quiet", "loaded")


def register(sub: Subparsers) -> None:
    p = sub.add_parser("bench", help="measure the medium: fidelity report, core speed, lag",
                       description=__doc__.split("\n\n")[0])
    bsub = p.add_subparsers(dest="bench_command", metavar="BENCH")
    bsub.required = True
    m = bsub.add_parser("medium", help="fidelity report: one-hop UDP goodput vs analytic DCF")
    m.add_argument("--json", action="store_true", help="one JSON object with a 'checks' list")
    m.add_argument("--checks", default=",".join(DEFAULT_CHECKS),
                   help="comma list of PHY:RATE[:rts|:sp|:tcp] (default: %(default)s)")
    m.add_argument("--duration", type=float, default=10.0, help="seconds per flow (default 10)")
    m.add_argument("--tolerance", type=float, default=3.0, help="percent (default 3)")
    m.add_argument("--load", choices=LOADS, default="both",
                   help="run the checks on a quiet host, with every host core saturated by a "
                        "CPU load the bench starts, or both and compare (default both)")
    add_engine_option(m)
    m.set_defaults(func=cmd_medium)
    c = bsub.add_parser("core", help="simulation core events/s (bench/medium_core.py)")
    c.add_argument("args", nargs="*", help="passed to bench/medium_core.py (after --)")
    c.set_defaults(func=cmd_core)
    e = bsub.add_parser("e2e", help="lag and mediumd CPU during 54 Mbit/s TCP (bench/medium_e2e.py)")
    e.add_argument("args", nargs="*", help="passed to bench/medium_e2e.py (after --)")
    add_engine_option(e)
    e.set_defaults(func=cmd_e2e)
    g = bsub.add_parser("engine", help="the UML engine: wall s per emulated s, boot, "
                                       "memory, --jobs speed-up (bench/engine.py)")
    g.add_argument("args", nargs="*", help="passed to bench/engine.py (after --)")
    g.set_defaults(func=cmd_engine)


def parse_check(text: str, duration: float, tolerance: float) -> Check:
    """``g:54:rts`` -> a fidelity Check; errors name the allowed values."""
    from harness.kernel import wireless
    fidelity = load_bench("medium_fidelity")
    parts = text.strip().split(":")
    if len(parts) not in (2, 3) or parts[0] not in wireless.PHY_MODES:
        raise HarnessError(f"--checks item {text!r} is invalid: allowed PHY:RATE[:rts|:sp|:tcp] "
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
    if variant not in ("", "rts", "sp", "tcp"):
        raise HarnessError(f"--checks variant {variant!r} in {text!r} is invalid: allowed "
                           "rts, sp, tcp")
    if variant == "tcp":
        return fidelity.tcp_check(phy, rate, duration=duration, tolerance_pct=tolerance)
    if variant == "sp" and (phy != "b" or rate == 1.0):
        raise HarnessError(f"--checks {text!r}: short preamble exists only for 802.11b 2..11 Mbit/s")
    if variant == "sp":
        # Measured: mac80211 in an IBSS flags every 802.11b frame long-preamble (radiotap
        # flags in mediumd's pcap never carry 0x02); the medium times what the kernel flags,
        # so a short-preamble check would compare long-preamble frames with the short formula.
        raise HarnessError(f"--checks {text!r}: the kernel sends 802.11b with the long preamble "
                           "in an IBSS (no per-frame short-preamble flag reaches the medium); "
                           "allowed variants here: rts")
    return fidelity.udp_check(phy, rate, rts=variant == "rts", short_preamble=variant == "sp",
                              duration=duration, tolerance_pct=tolerance)


def _argv(args: argparse.Namespace) -> List[str]:
    """The guest's command: one pass (the host starts the load), JSON on standard output."""
    return ["bench", "medium", "--checks", args.checks, "--duration", f"{args.duration:g}",
            "--tolerance", f"{args.tolerance:g}", "--load", "quiet", "--json"]


def cmd_medium(args: argparse.Namespace) -> int:
    checks = [parse_check(c, args.duration, args.tolerance) for c in args.checks.split(",") if c]
    from harness.vm.dispatch import needs_vm  # (checks parsed first: bad input fails at once)
    if not needs_vm() and args.load == "quiet":  # here (natively or in the guest), one pass
        report = measure_pass(checks, show=not args.json)
        if args.json:
            print(json.dumps(report, indent=1))
        return 0 if report["ok"] else 1
    passes = {}
    for load in (("quiet", "loaded") if args.load == "both" else (args.load,)):
        with cpu_load(os.cpu_count() or 1 if load == "loaded" else 0):
            print(f"== pass: {load} host" + (f" ({os.cpu_count()} CPU burners)"
                                              if load == "loaded" else ""),
                  file=sys.stderr, flush=True)
            passes[load] = one_pass(args)
    report = compare_passes(passes, args.tolerance)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for line in comparison_table(report):
            print(line)
    return 0 if report["ok"] else 1


def one_pass(args: argparse.Namespace) -> Dict[str, Any]:
    """One pass of every check, in a guest (its JSON report) or here."""
    from harness.vm.dispatch import harness_script, needs_vm, run_script
    if not needs_vm():
        return measure_pass([parse_check(c, args.duration, args.tolerance)
                             for c in args.checks.split(",") if c], show=False)
    out: List[str] = []
    rc = run_script(harness_script(_argv(args)), on_out=out.append)
    text = "".join(out)
    try:
        report: Dict[str, Any] = json.loads(text[text.index("{"):])
    except ValueError:
        raise HarnessError(f"bench medium in the guest gave no report (exit {rc}): "
                           f"{text.strip()[-500:]}") from None
    return report


def measure_pass(checks: List[Check], show: bool) -> Dict[str, Any]:
    from harness.kernel.host import in_vm
    run_check = load_bench("medium_fidelity").run_check
    for check in checks:
        try:
            run_check(check)
        except HarnessError as err:
            check.ok = False
            check.note = f"error: {err}"
        if show:
            print(row(check), flush=True)
    report = {"report": "medium fidelity, one hop, one saturated sender",
              "where": "vm" if in_vm() else "native",
              "clock": os.environ.get("HARNESS_VM_CLOCK", "realtime") if in_vm() else "realtime",
              "checks": [c.to_dict() for c in checks],
              "ok": all(c.ok for c in checks)}
    if show:
        print(f"\n{sum(1 for c in checks if c.ok)}/{len(checks)} within tolerance")
    return report


@contextlib.contextmanager
def cpu_load(processes: int) -> Iterator[None]:
    """``processes`` busy loops at normal priority for the duration (0: none), killed after."""
    from harness.kernel.cleanup import die_with_parent
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                preexec_fn=die_with_parent) for _ in range(processes)]
    try:
        yield
    finally:
        for proc in burners:
            proc.kill()
            proc.wait()


def compare_passes(passes: Dict[str, Dict[str, Any]], tolerance: float) -> Dict[str, Any]:
    """Per check: each pass's goodput and error, and how far the loaded pass is from the
    quiet one; ``ok`` when every check is within tolerance in every pass and the passes agree
    within ``LOAD_AGREEMENT_PCT``."""
    names = [c["name"] for c in next(iter(passes.values()))["checks"]]
    rows = []
    for name in names:
        by_load = {load: next(c for c in rep["checks"] if c["name"] == name)
                   for load, rep in passes.items()}
        entry: Dict[str, Any] = {"name": name,
                                 "expected": next(iter(by_load.values()))["expected"],
                                 "passes": by_load}
        quiet, loaded = by_load.get("quiet"), by_load.get("loaded")
        ok = all(c["ok"] for c in by_load.values())
        if quiet and loaded and quiet["measured"] and loaded["measured"] is not None:
            diff = 100.0 * (loaded["measured"] - quiet["measured"]) / quiet["measured"]
            entry["loaded_vs_quiet_pct"] = round(diff, 2)
            ok = ok and abs(diff) <= LOAD_AGREEMENT_PCT
        entry["ok"] = ok
        rows.append(entry)
    clocks = sorted({rep.get("clock", "?") for rep in passes.values()})
    return {"report": "medium fidelity, quiet and loaded host", "clock": ",".join(clocks),
            "tolerance_pct": tolerance, "agreement_pct": LOAD_AGREEMENT_PCT,
            "checks": rows, "ok": all(r["ok"] for r in rows)}


def comparison_table(report: Dict[str, Any]) -> List[str]:
    lines = [f"clock: {report['clock']}; tolerance {report['tolerance_pct']:g} % of the analytic "
             f"value, quiet and loaded within {report['agreement_pct']:g} % of each other",
             f"{'check':<22} {'analytic':>8}  {'quiet':>8} {'err%':>6} {'lag p99':>8}  "
             f"{'loaded':>8} {'err%':>6} {'lag p99':>8}  {'diff%':>6} ok"]
    for r in report["checks"]:
        cells = []
        for load in ("quiet", "loaded"):
            c = r["passes"].get(load)
            if c is None:
                cells.append(f"{'-':>8} {'-':>6} {'-':>8}")
                continue
            err = c.get("error_pct")
            p99 = ((c.get("medium") or {}).get("lag_us") or {}).get("p99")
            cells.append(f"{c['measured'] if c['measured'] is not None else '-':>8} "
                         f"{'-' if err is None else f'{err:+.2f}':>6} "
                         f"{'-' if p99 is None else f'{p99:.0f}us':>8}")
        diff = r.get("loaded_vs_quiet_pct")
        lines.append(f"{r['name']:<22} {r['expected']:>8.3f}  {cells[0]}  {cells[1]}  "
                     f"{'-' if diff is None else f'{diff:+.2f}':>6} {'yes' if r['ok'] else 'NO'}")
    good = sum(1 for r in report["checks"] if r["ok"])
    lines.append(f"\n{good}/{len(report['checks'])} checks within tolerance in every pass"
                 + (" and agreeing across passes" if "loaded" in report["checks"][0]["passes"]
                    and "quiet" in report["checks"][0]["passes"] else ""))
    return lines


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


def _bench_file(name: str) -> Path:
    from harness.paths import project_file
    path = project_file("bench", name)
    if not path.exists():
        raise HarnessError(f"{path} is missing", hint="it is part of the checkout, not installs")
    return path


def load_bench(name: str) -> ModuleType:
    """The module ``bench/<name>.py``, loaded by its path once per process: the benches sit
    above the harness's layers (a fidelity check builds a network and runs flows), so they
    are files of the checkout, not modules of the package. Registered as ``name``, the name the
    bench scripts import it by, so both share one module."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _bench_file(f"{name}.py"))
    if spec is None or spec.loader is None:
        raise HarnessError(f"bench/{name}.py cannot be loaded as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before it runs: its dataclasses look themselves up there
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _script(name: str, extra: List[str]) -> int:
    path = _bench_file(name)
    extra = extra[1:] if extra[:1] == ["--"] else extra
    return subprocess.call([sys.executable, str(path), *extra])


def cmd_core(args: argparse.Namespace) -> int:
    return _script("medium_core.py", args.args)


def cmd_e2e(args: argparse.Namespace) -> int:
    return _script("medium_e2e.py", args.args)


def cmd_engine(args: argparse.Namespace) -> int:
    return _script("engine.py", args.args)
