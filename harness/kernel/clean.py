"""Remove what killed runs left behind, found by the names and markers runs give (naming.py).

Removes only:
- processes whose environment carries ``HARNESS_RUN=`` (every process a run starts,
  mediumd included when started through the harness), and every process inside an
  ``hx-*`` namespace;
- namespaces named ``hx-<tag>-<node>``;
- hwsim radios named ``hx-<tag>-<node>-<n>`` (inside such namespaces and in the root one);
- Open vSwitch bridges named ``hx<tag>...``.
Nothing else on the machine is touched.
"""
from __future__ import annotations

import os
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

from harness.kernel import hwsim, naming
from harness.kernel.netns import delete_netns, kill_netns_pids, list_netns, run

_MARKER = (naming.RUN_ENV + "=").encode()
_RADIO_RETURN_WAIT = 3.0  # s: radios come back to the root ns when their namespace is gone


@dataclass
class CleanReport:
    processes: List[str] = field(default_factory=list)
    namespaces: List[str] = field(default_factory=list)
    radios: List[str] = field(default_factory=list)
    bridges: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.processes or self.namespaces or self.radios or self.bridges)


def _ancestors() -> set:
    pids = set()
    pid = os.getpid()
    while pid > 1:
        pids.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def marked_processes(tag: Optional[str] = None) -> List[int]:
    """Pids whose environment has ``HARNESS_RUN=`` (of ``tag`` if given), except ourselves."""
    mine = _ancestors()
    want = _MARKER + (tag.encode() if tag else b"")
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        try:
            env = (entry / "environ").read_bytes()
        except OSError:
            continue
        if any(var.startswith(want) for var in env.split(b"\0")):
            out.append(int(entry.name))
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def kill_marked(report: CleanReport, tag: Optional[str] = None) -> None:
    pids = marked_processes(tag)
    for pid in pids:
        report.processes.append(f"{pid} {_cmdline(pid)[:80]}")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in pids):
            time.sleep(0.05)


def harness_namespaces(tag: Optional[str] = None) -> List[str]:
    out = []
    for ns in list_netns():
        parsed = naming.parse_netns(ns)
        if parsed and (tag is None or parsed.tag == tag):
            out.append(ns)
    return out


def harness_radios_in(ns: Optional[str], tag: Optional[str] = None) -> List[hwsim.RadioInfo]:
    """hx-* radios whose wiphy is in namespace ``ns`` (None = root)."""
    if not hwsim.module_loaded():
        return []
    with hwsim.Hwsim(netns=ns) as conn:
        return [r for r in conn.list_radios()
                if (p := naming.parse_radio(r.name)) and (tag is None or p.tag == tag)]


def _delete_radios(ns: Optional[str], radios: List[hwsim.RadioInfo], report: CleanReport) -> None:
    if not radios:
        return
    with hwsim.Hwsim(netns=ns) as conn:
        for r in radios:
            if conn.del_radio(radio_id=r.id, missing_ok=True):
                report.radios.append(r.name)


def harness_bridges() -> List[str]:
    if shutil.which("ovs-vsctl") is None or not any(
            Path(d, "db.sock").exists() for d in ("/run/openvswitch", "/var/run/openvswitch")):
        return []  # no OVS database running: no bridges (and no 3 s connect timeout)
    proc = run(["ovs-vsctl", "--timeout=3", "list-br"], check=False, timeout=10)
    if proc.returncode != 0:
        return []
    return [b for b in proc.stdout.split() if naming.is_harness_bridge(b)]


def clean(tag: Optional[str] = None, log: Callable[[str], None] = lambda _m: None) -> CleanReport:
    """Remove every harness object (of one run ``tag``, or of all runs)."""
    report = CleanReport()

    def step(what: str, fn, *args) -> None:
        try:
            fn(*args)
        except Exception as err:  # keep cleaning; report at the end
            report.problems.append(f"{what}: {err}")

    step("processes", kill_marked, report, tag)
    for ns in harness_namespaces(tag):
        def one_ns(ns: str = ns) -> None:
            for pid in kill_netns_pids(ns):
                report.processes.append(f"{pid} (in {ns})")
            _delete_radios(ns, harness_radios_in(ns, tag), report)
            delete_netns(ns)
            report.namespaces.append(ns)
        step(f"namespace {ns}", one_ns)

    def root_radios() -> None:
        deadline = time.monotonic() + (_RADIO_RETURN_WAIT if report.namespaces else 0.0)
        while True:
            _delete_radios(None, harness_radios_in(None, tag), report)
            leftover = [n for n in hwsim.wiphy_names() if (p := naming.parse_radio(n))
                        and (tag is None or p.tag == tag)]
            if not leftover or time.monotonic() > deadline:
                if leftover:
                    report.problems.append("radios still present: " + ", ".join(leftover))
                return
            time.sleep(0.1)
    step("root radios", root_radios)

    def bridges() -> None:
        for br in harness_bridges():
            if tag is None or br.startswith(f"hx{tag}"):
                run(["ovs-vsctl", "--timeout=5", "--if-exists", "del-br", br], timeout=15)
                report.bridges.append(br)
    step("OVS bridges", bridges)

    for kind in ("processes", "namespaces", "radios", "bridges"):
        for item in getattr(report, kind):
            log(f"removed {kind[:-1] if kind != 'processes' else 'process'}: {item}")
    return report


def harness_objects_left(tag: Optional[str] = None) -> List[str]:
    """What of a run still exists (used by tests): namespaces, radios, marked processes."""
    left = [f"netns {ns}" for ns in harness_namespaces(tag)]
    left += [f"wiphy {n}" for n in hwsim.wiphy_names()
             if (p := naming.parse_radio(n)) and (tag is None or p.tag == tag)]
    left += [f"process {pid} {_cmdline(pid)[:60]}" for pid in marked_processes(tag)]
    return left

