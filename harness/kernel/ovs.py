"""Open vSwitch bridges of a run (``hx<tag>...``, ``naming.ovs_bridge_name``).

Today this module only registers their clean-up (``harness.kernel.cleanup``); a switch node
class that creates bridges will build on it.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import List, Optional

from harness.kernel import cleanup, naming
from harness.kernel.netns import run

#: Where ovsdb-server's socket lives when Open vSwitch runs.
OVSDB_DIRS = ("/run/openvswitch", "/var/run/openvswitch")


def harness_bridges(tag: Optional[str] = None) -> List[str]:
    """Bridges named like a run's (of ``tag`` if given); none when no OVS database runs."""
    if shutil.which("ovs-vsctl") is None or not any(
            Path(d, "db.sock").exists() for d in OVSDB_DIRS):
        return []  # no OVS database running: no bridges (and no 3 s connect timeout)
    proc = run(["ovs-vsctl", "--timeout=3", "list-br"], check=False, timeout=10)
    if proc.returncode != 0:
        return []
    return [b for b in proc.stdout.split() if naming.is_harness_bridge(b)
            and (tag is None or b.startswith(naming.ovs_bridge_prefix(tag)))]


def _delete_bridges(tag: Optional[str], report: cleanup.CleanReport) -> None:
    for br in harness_bridges(tag):
        run(["ovs-vsctl", "--timeout=5", "--if-exists", "del-br", br], timeout=15)
        report.add("bridge", br)


cleanup.add_cleanup_callback("OVS bridges", _delete_bridges, stage="root namespace",
                             leftovers=lambda tag: [f"bridge {b}" for b in harness_bridges(tag)])
