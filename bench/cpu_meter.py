"""CPU use read from /proc: the whole machine's busy fraction and one process's CPU seconds.

A medium measurement is only about the air if the machine kept up: ``CpuMeter`` records, across
one flow, how busy every CPU was and what share of one CPU mediumd used, so that a result
can be judged (``starved_reason`` of bench/medium_fidelity.py) and reported beside the goodput.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Dict, List

from harness.kernel.host import in_vm


def proc_cpu_s(pid: int) -> float:
    """utime + stime of a process in seconds (includes softirq work run in its syscalls,
    e.g. the receive path of frames mediumd injects)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def system_cpu() -> List[int]:
    """The jiffy counters of all CPUs together (first line of /proc/stat)."""
    return [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]


def cpu_busy(before: List[int], after: List[int]) -> float:
    """Busy fraction of all CPUs between two ``system_cpu`` samples (idle and iowait are idle)."""
    d = [a - b for a, b in zip(after, before)]
    idle = d[3] + (d[4] if len(d) > 4 else 0)
    return 1.0 - idle / sum(d) if sum(d) else 0.0


class CpuMeter:
    """CPU of the machine and of one process (mediumd) from construction to ``result()``."""

    def __init__(self, pid: int):
        self.pid = pid
        self.t0, self.sys0, self.proc0 = time.monotonic(), system_cpu(), proc_cpu_s(pid)

    def result(self) -> Dict[str, float]:
        """``guest_cpu_busy`` (``cpu_busy`` outside the harness's VM), ``mediumd_cpu_share``
        (of one CPU) and ``ncpu``."""
        wall = time.monotonic() - self.t0
        busy_key = "guest_cpu_busy" if in_vm() else "cpu_busy"
        return {busy_key: round(cpu_busy(self.sys0, system_cpu()), 3),
                "mediumd_cpu_share": round((proc_cpu_s(self.pid) - self.proc0) / wall, 3),
                "ncpu": os.cpu_count() or 1}
