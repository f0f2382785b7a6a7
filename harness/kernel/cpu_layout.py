"""Where the medium daemon and the network stack run: one CPU for mediumd, the rest for the stack.

Why: every frame mediumd delivers is injected with a netlink send, and the kernel runs the
receiver's whole stack (mac80211, IP, TCP, the ACK it sends back) in softirq on return from
that send, on mediumd's CPU. With two vCPUs under TCG that serialises the medium behind the
stack: at 54 Mbit/s TCP the guest sat 40 % idle while deliveries ran milliseconds late.
Pinning mediumd to one CPU and steering each radio interface's receive processing (RPS) to
the others lets both proceed at once (one-hop TCP at 802.11g 54 Mbit/s in the VM: 17-20 ->
21-24 Mbit/s; docs/medium.md). This is placement, not physics: no frame's timing changes.

``HARNESS_CPU_LAYOUT=off`` leaves placement to the kernel. With one usable CPU nothing is done.
"""
from __future__ import annotations

import contextlib
import os
import shlex
from typing import List, Optional, Set


def enabled() -> bool:
    return os.environ.get("HARNESS_CPU_LAYOUT", "on").lower() not in ("off", "0", "no", "false")


def _usable_cpus() -> Set[int]:
    return set(os.sched_getaffinity(0))


def medium_cpu() -> Optional[int]:
    """The CPU mediumd is pinned to, or None when there is nothing to separate."""
    cpus = _usable_cpus()
    if not enabled() or len(cpus) < 2:
        return None
    return min(cpus)


def stack_mask() -> Optional[str]:
    """The ``rps_cpus`` mask of every usable CPU but mediumd's (hex, comma every 32 CPUs)."""
    mcpu = medium_cpu()
    if mcpu is None:
        return None
    digits = f"{sum(1 << cpu for cpu in _usable_cpus() - {mcpu}):x}"
    digits = digits.rjust((len(digits) + 7) // 8 * 8, "0")
    return ",".join(digits[i:i + 8] for i in range(0, len(digits), 8))


def rps_lines(intf: str) -> List[str]:
    """Shell lines (run in the node's namespace) steering ``intf``'s receive work off
    mediumd's CPU; silently nothing on kernels without RPS."""
    mask = stack_mask()
    if mask is None:
        return []
    path = shlex.quote(f"/sys/class/net/{intf}/queues/rx-0/rps_cpus")
    return [f"if [ -w {path} ]; then echo {mask} > {path}; fi"]


def pin_medium(pid: int) -> None:
    """Pin mediumd (already started) to its CPU; a failure only loses the speed-up."""
    cpu = medium_cpu()
    if cpu is None:
        return
    with contextlib.suppress(OSError):
        os.sched_setaffinity(pid, {cpu})
