"""Open vSwitch for a switch node: its own ``ovsdb-server`` and ``ovs-vswitchd`` per run.

Each switch node runs the two daemons inside its own namespace, with their database, sockets,
pid files and logs in a run directory of its own (``hx-<tag>-ovs-<node>-*`` in the temporary
directory, claimed with ``cleanup.claim``; ``OVS_RUNDIR`` and friends point there, so nothing
touches the system's ``/run/openvswitch``). The kernel datapath belongs to the namespace it
was created in: ovs-vswitchd sees only the datapaths of its namespace (it deletes datapaths it
has no bridge for, so two switches in one namespace would fight), and deleting the namespace
deletes the datapath. The bridge runs in ``standalone`` fail mode: with no controller it is
a MAC-learning switch.

What a killed run leaves: the two daemons (marked ``HARNESS_RUN``, inside the run's namespace:
the namespace clean-up kills them) and the run directory (this module registers its clean-up).
Bridges in the system's own OVS database named like a run's are removed too (a harness before
per-run daemons created them there).
"""
from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional

from harness.errors import HarnessError
from harness.kernel import cleanup, naming
from harness.kernel.netns import Node, run

#: Where ovsdb-server's socket lives when the system's Open vSwitch runs.
OVSDB_DIRS = ("/run/openvswitch", "/var/run/openvswitch")
#: The database schema of the Debian package.
SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")
#: How long the daemons may take to come up and apply a change (guest seconds). Generous: in
#: virtual time the guest's clock jumps ahead while it waits for the disk, so the first start
#: of a boot (binaries not yet in the page cache) can take tens of guest seconds (measured:
#: ``ovsdb-tool create`` timed out at 30 s once, then took 0.03 s).
START_TIMEOUT = 120.0
#: The daemon name in the run directory's name (``naming.daemon_dir_prefix``).
DAEMON = "ovs"
FAIL_MODE = "standalone"


def load_module() -> None:
    """The kernel datapath (``openvswitch``; modprobe resolves its libcrc32c soft dependency)."""
    if not Path("/sys/module/openvswitch").exists():
        run(["modprobe", "openvswitch"], timeout=START_TIMEOUT)


class OvsSwitch:
    """ovsdb-server + ovs-vswitchd of one switch node, with one bridge in standalone mode."""

    def __init__(self, node: Node, tag: str, bridge: str):
        self.node = node
        self.tag = tag
        self.bridge = bridge
        self.run_dir: Optional[Path] = None

    # -- paths -------------------------------------------------------------------------
    def _path(self, name: str) -> str:
        assert self.run_dir is not None, "start() first"
        return str(self.run_dir / name)

    @property
    def db_socket(self) -> str:
        return self._path("db.sock")

    def env(self) -> Dict[str, str]:
        """Every OVS default path inside the run directory."""
        return dict.fromkeys(("OVS_RUNDIR", "OVS_DBDIR", "OVS_LOGDIR", "OVS_SYSCONFDIR"),
                             self._path("."))

    def _env_argv(self) -> List[str]:
        return ["env", *(f"{k}={v}" for k, v in self.env().items())]

    def daemon_args(self, daemon: str) -> List[str]:
        """The command line of ``ovsdb-server`` or ``ovs-vswitchd`` (foreground: the node tracks
        the process and stops it with the run)."""
        common = [f"--unixctl={self._path(daemon + '.ctl')}", f"--pidfile={self._path(daemon + '.pid')}",
                  f"--log-file={self._path(daemon + '.log')}", "--no-chdir", "-vconsole:off"]
        if daemon == "ovsdb-server":
            return [daemon, self._path("conf.db"), f"--remote=punix:{self.db_socket}", *common]
        if daemon == "ovs-vswitchd":
            return [daemon, f"unix:{self.db_socket}", *common]
        raise ValueError(f"unknown OVS daemon {daemon!r}")

    def vsctl_args(self, *args: str, wait: bool = True) -> List[str]:
        out = ["ovs-vsctl", f"--db=unix:{self.db_socket}", f"--timeout={int(START_TIMEOUT)}"]
        return out + ([] if wait else ["--no-wait"]) + list(args)

    # -- lifetime ----------------------------------------------------------------------
    def start(self) -> None:
        """Database, both daemons, the bridge (up); returns once ovs-vswitchd applied it."""
        if not SCHEMA.exists():
            raise HarnessError(f"Open vSwitch is not installed: {SCHEMA} is missing",
                               hint="apt-get install openvswitch-switch (the VM image has it)")
        load_module()
        wait_for_uptime(OVS_MIN_UPTIME_S)
        self.run_dir = cleanup.new_run_dir(naming.daemon_dir_prefix(self.tag, DAEMON,
                                                                      self.node.name))
        run(["ovsdb-tool", "create", self._path("conf.db"), str(SCHEMA)], timeout=START_TIMEOUT)
        self.node.popen(self._env_argv() + self.daemon_args("ovsdb-server"),  # logs: run dir
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_for(self.db_socket, "ovsdb-server")
        self.node.cmd(self.vsctl_args("init", wait=False), timeout=START_TIMEOUT)
        self.node.popen(self._env_argv() + self.daemon_args("ovs-vswitchd"),
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.node.cmd(self.vsctl_args("add-br", self.bridge, "--", "set-fail-mode", self.bridge,
                                      FAIL_MODE), timeout=START_TIMEOUT + 10)
        self.node.cmd(["ip", "link", "set", self.bridge, "up"], timeout=START_TIMEOUT)

    def _wait_for(self, path: str, daemon: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while not Path(path).exists():
            if time.monotonic() > deadline:
                raise HarnessError(f"[{self.node.name}] {daemon} did not create {path} within "
                                   f"{START_TIMEOUT:g} s: {self.log_tail(daemon)}")
            time.sleep(0.05)

    def log_tail(self, daemon: str, chars: int = 600) -> str:
        try:
            return Path(self._path(daemon + ".log")).read_text(errors="replace")[-chars:].strip()
        except OSError:
            return "no log"

    def add_port_lines(self, intf: str) -> List[str]:
        """Shell lines that make ``intf`` (in the switch's namespace) a port of the bridge."""
        return [" ".join(self.vsctl_args("add-port", self.bridge, intf)),
                f"ip link set {intf} up"]

    def remove_files(self) -> None:
        """After the daemons were stopped: the run directory goes (nothing in it is kept)."""
        if self.run_dir is not None:
            shutil.rmtree(self.run_dir, ignore_errors=True)
            self.run_dir = None


# -- clean-up of killed runs (registered with harness.kernel.cleanup) -----------------------
#: Seconds the kernel must have been up before ovs-vswitchd starts. Measured in UML guests,
#: which start a run a second after boot: with the monotonic clock under about 10 s,
#: ovs-vswitchd forwarded nothing (every LAN run: "No route to host"); from 10 s on it does.
#: Natively the host has been up longer; in virtual time the wait costs no wall time.
OVS_MIN_UPTIME_S = 10.0


def wait_for_uptime(seconds: float) -> None:
    left = seconds - time.clock_gettime(time.CLOCK_MONOTONIC)
    if left > 0:
        time.sleep(left)


def harness_bridges(tag: Optional[str] = None) -> List[str]:
    """Bridges named like a run's in the system's OVS database (of ``tag`` if given); none when
    no system OVS database runs."""
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
cleanup.register_run_dirs("OVS run directories",
                          lambda tag: naming.daemon_dir_pattern(tag, DAEMON),
                          "OVS run directory")
