"""What this host can do: root, hwsim, TCP modules, tools. Used by ``doctor`` and dispatch."""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from harness.kernel.tcp import AVAILABLE_PATH, MAINLINE_MODULES


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    needed_for_native: bool = True


def in_vm() -> bool:
    """True inside the harness's own guest."""
    return os.environ.get("HARNESS_IN_VM") == "1"


def in_virtual_time() -> bool:
    """Whether this process runs in a UML guest whose clock advances only when every process
    waits (time travel): there anything that spins, and any unshaped path, stops the clock."""
    return (os.environ.get("HARNESS_GUEST") == "uml"
            and os.environ.get("HARNESS_VM_CLOCK") == "virtual")


def kernel_at_least(major: int, minor: int, release: Optional[str] = None) -> bool:
    """Whether the running kernel (or ``release``, e.g. "7.3.4") is at least major.minor: a
    mechanism may change between versions (the kernel is part of the experiment)."""
    m = re.match(r"(\d+)\.(\d+)", release or platform.release())
    return m is not None and (int(m.group(1)), int(m.group(2))) >= (major, minor)


def _modprobe_dry(module: str) -> bool:
    if Path(f"/sys/module/{module}").exists():
        return True
    if shutil.which("modprobe") is None:
        return False
    return subprocess.run(["modprobe", "-n", "-q", module], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def hwsim_available() -> bool:
    return _modprobe_dry("mac80211_hwsim")


def native_capable() -> bool:
    """Can emulation run right here (root + loadable mac80211_hwsim)?"""
    return os.geteuid() == 0 and hwsim_available()


def tcp_module_available(name: str) -> bool:
    if AVAILABLE_PATH.exists() and name in AVAILABLE_PATH.read_text().split():
        return True
    return _modprobe_dry(f"tcp_{name}")


def checks() -> List[Check]:
    """Every capability the harness uses, natively and in its guests."""
    out = [Check("root", os.geteuid() == 0, f"euid {os.geteuid()}",
                 "run as root (namespaces and radios need it)")]
    hw = hwsim_available()
    out.append(Check("mac80211_hwsim", hw, "loadable" if hw else "not in this kernel",
                     "install your distribution's extra modules (Ubuntu: linux-modules-extra-$(uname -r)),"
                     " or use the default engine, uml (its kernel has it built in)"))
    out.append(Check("debugfs", Path("/sys/kernel/debug").exists(), "/sys/kernel/debug",
                     "mount -t debugfs debugfs /sys/kernel/debug", needed_for_native=False))
    missing_tcp = [m for m in MAINLINE_MODULES if not tcp_module_available(m)]
    out.append(Check("tcp congestion modules", not missing_tcp,
                     "all of " + " ".join(MAINLINE_MODULES) if not missing_tcp
                     else "missing: " + " ".join(missing_tcp),
                     "a kernel with tcp_* modules (Debian/Ubuntu stock kernels have them)"))
    out.append(Check("netem", _modprobe_dry("sch_netem"), "sch_netem",
                     "kernel module sch_netem", needed_for_native=False))
    out.append(Check("openvswitch", _modprobe_dry("openvswitch"), "kernel datapath",
                     "kernel module openvswitch (hybrid LAN topologies)", needed_for_native=False))
    # every program a run starts (a UML guest runs the host's programs: the host needs them)
    for tool, pkg, native in [("ip", "iproute2", True), ("iw", "iw", True),
                              ("iperf3", "iperf3", True), ("ss", "iproute2", True),
                              ("ping", "iputils-ping", True), ("tc", "iproute2", True),
                              ("nft", "nftables", False), ("ethtool", "ethtool", False),
                              ("tcpdump", "tcpdump", False), ("hostapd", "hostapd", False),
                              ("wpa_supplicant", "wpasupplicant", False),
                              ("ovs-vsctl", "openvswitch-switch", False),
                              ("ovsdb-server", "openvswitch-switch", False),
                              ("ovs-vswitchd", "openvswitch-switch", False),
                              ("batctl", "batctl", False), ("babeld", "babeld", False),
                              ("modprobe", "kmod", True), ("depmod", "kmod", True),
                              ("taskset", "util-linux", True),
                              ("gcc", "gcc", True), ("make", "make", True),
                              ("pkg-config", "pkg-config", True)]:
        path = shutil.which(tool)
        out.append(Check(tool, path is not None, path or "not found", f"apt-get install {pkg}",
                         needed_for_native=native))
    libnl = subprocess.run(["pkg-config", "--exists", "libnl-genl-3.0"],
                           capture_output=True).returncode == 0 if shutil.which("pkg-config") else False
    out.append(Check("libnl-genl-3", libnl, "for building mediumd",
                     "apt-get install libnl-genl-3-dev"))
    # what the UML engine needs to build its kernel (once)
    for tool, pkg in [("flex", "flex"), ("bison", "bison"), ("bc", "bc"), ("xz", "xz-utils"),
                      ("patch", "patch"), ("apt-get", "apt")]:
        path = shutil.which(tool)
        out.append(Check(f"{tool} (UML kernel build)", path is not None, path or "not found",
                         f"apt-get install {pkg}", needed_for_native=False))
    return out
