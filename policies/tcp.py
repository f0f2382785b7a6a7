"""TCP settings of every node: SACK on/off (``net.ipv4.tcp_sack``, per namespace), the
default congestion module (loaded and allowed in the root namespace first; flows that name
their own module still pass it to iperf3 with ``-C``) and the socket buffer limits of an
older kernel (``tcp_buffers``) and the loss recovery of an older kernel (``tcp_recovery``)."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional

from harness.errors import HarnessError
from harness.kernel import tcp
from harness.kernel.host import kernel_at_least
from harness.params import ParamSpec
from policies import Policy, PolicyViolation, RunContext


class Sack(Policy):
    """Selective acknowledgements in every node (both ends must agree for SACK to be used)."""

    name = "sack"

    def __init__(self, value: bool):
        if not isinstance(value, bool):
            raise HarnessError(f"sack {value!r} is invalid: allowed true or false")
        super().__init__(value)

    def apply(self, ctx: RunContext) -> None:
        for node in ctx.net.nodes.values():
            node.set_sysctls({"net.ipv4.tcp_sack": int(self.value)})

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "mechanism": "sysctl net.ipv4.tcp_sack in every node"}


class Congestion(Policy):
    """Default congestion module of every node's namespace."""

    name = "congestion"

    def __init__(self, value: str):
        super().__init__(tcp.check_congestion(value))

    def apply(self, ctx: RunContext) -> None:
        ctx.net.ensure_congestion([self.value])
        for node in ctx.net.nodes.values():
            tcp.set_default_congestion(node, self.value)

    def record(self) -> Dict[str, Any]:
        return {"value": self.value,
                "mechanism": "net.ipv4.tcp_congestion_control in every node; flows use -C"}


#: Socket buffer sysctls of kernels a paper ran (per namespace in today's Linux). Linux 2.6's
#: defaults (Documentation/networking/ip-sysctl.txt of 2.6): send buffer at most 128 KB,
#: receive buffer at most 87380 x 2 = 174760 bytes, a quarter of it kept as overhead
#: (tcp_adv_win_scale 2). Today's: 4 MB, 6 MB, and half (1).
TCP_BUFFERS: Dict[str, Dict[str, str]] = {
    "linux-2.6.14": {"net.ipv4.tcp_wmem": "4096 16384 131072",
                     "net.ipv4.tcp_rmem": "4096 87380 174760",
                     "net.ipv4.tcp_adv_win_scale": "2"},
}


class Nullable(Policy):
    """A policy whose value is checked by its ``PARAM`` and that does nothing when null."""

    PARAM: ParamSpec

    def __init__(self, value: Any):
        super().__init__(self.PARAM.validate(value, self.name))

    @property
    def active(self) -> bool:
        return self.value is not None


class OldKernel(Nullable):
    """Per-namespace sysctls of an older kernel in every node, one set per kernel name in
    ``TABLE``; null leaves today's. Subclasses name the table and declare ``PARAM`` (its
    choices are the table's kernels; the catalog offers it)."""

    TABLE: Dict[str, Dict[str, str]] = {}

    def apply(self, ctx: RunContext) -> None:
        """Write the set in every node, then read it back: a kernel that keeps another value
        (a sysctl that is not per namespace, a value it clamps) fails the run here."""
        if self.value is None:
            return
        wanted = self.TABLE[self.value]
        for node in ctx.net.nodes.values():
            node.set_sysctls(wanted)
            for key, value in wanted.items():
                got = node.get_sysctl(key)
                if got.split() != value.split():
                    raise PolicyViolation(f"{self.name} {self.value}: [{node.name}] {key} "
                                          f"reads {got!r} after writing {value!r}")

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "sysctls": self.TABLE.get(self.value or "", {}),
                "mechanism": "per-namespace sysctls in every node, read back"}


class Buffers(OldKernel):
    """The socket buffer limits of an older kernel in every node (``TCP_BUFFERS``): how far a
    sender's window can grow when nothing else stops it, so how full a queue it keeps."""

    name = "tcp_buffers"
    TABLE = TCP_BUFFERS
    PARAM = ParamSpec("tcp_buffers", "choice", "socket buffer limits of an older kernel",
                      choices=tuple(TCP_BUFFERS), nullable=True, null_label="today's defaults")

    def record(self) -> Dict[str, Any]:
        """Also what this kernel ignores: ``tcp_adv_win_scale`` is obsolete since Linux 6.6
        (the window is the buffer times the measured payload share of its memory), so on the
        UML engine's 7.3 only the buffer limits take effect."""
        out = super().record()
        if self.value is not None and kernel_at_least(6, 6):
            out["ignored_by_kernel"] = ["net.ipv4.tcp_adv_win_scale"]
        return out


#: Loss-recovery sysctls of kernels a paper ran. Linux 2.6.8 (paper 000's routers, 2004) found a
#: lost segment only by duplicate ACKs / SACK (three segments past it) or by the retransmission
#: timeout: it had no RACK (time-based loss detection, Linux 4.4), no tail loss probe (3.10) and
#: no F-RTO (RFC 4138, 2005, came later). Linux 6.1 has all three on; here they go off.
#: A window too small for three segments past the loss then waits for the timeout (>= 200 ms).
TCP_RECOVERY: Dict[str, Dict[str, str]] = {
    "linux-2.6.8": {"net.ipv4.tcp_recovery": "0",
                    "net.ipv4.tcp_early_retrans": "0",
                    "net.ipv4.tcp_frto": "0"},
}


class Recovery(OldKernel):
    """The loss recovery of an older kernel in every node (``TCP_RECOVERY``): which losses a
    sender finds before its retransmission timeout, so what a lost segment costs a small window."""

    name = "tcp_recovery"
    TABLE = TCP_RECOVERY
    PARAM = ParamSpec("tcp_recovery", "choice", "loss recovery of an older kernel",
                      choices=tuple(TCP_RECOVERY), nullable=True,
                      null_label="today's (RACK, tail loss probe, F-RTO)")


class MaxRto(Nullable):
    """The largest retransmission timeout in every node (``net.ipv4.tcp_rto_max_ms``, per
    namespace: Linux 6.15 and later, and the uml engine's 6.1 by the patch
    vm/uml/patches/6.1/0005; 120 s otherwise): how long a sender whose path broke waits
    before it tries again (paper 001's mobile runs cap it at 2 s), read back."""

    name = "max_rto"
    SYSCTL = "net.ipv4.tcp_rto_max_ms"
    PARAM = ParamSpec("max_rto", "float", "largest retransmission timeout in seconds (Linux "
                      "6.15+)", default=None, min=1, max=120, nullable=True,
                      null_label="the kernel's (120 s)")

    def apply(self, ctx: RunContext) -> None:
        if self.value is None:
            return
        if not os.path.exists("/proc/sys/net/ipv4/tcp_rto_max_ms"):
            raise HarnessError("max_rto needs net.ipv4.tcp_rto_max_ms (Linux 6.15 or later, or "
                               "the uml engine's kernel, patched): this kernel has none")
        ms = str(int(round(self.value * 1000)))
        for node in ctx.net.nodes.values():
            node.set_sysctls({self.SYSCTL: ms})
            if node.get_sysctl(self.SYSCTL) != ms:
                raise PolicyViolation(f"max_rto: [{node.name}] {self.SYSCTL} does not read {ms}")

    def record(self) -> Dict[str, Any]:
        return {"value": self.value, "mechanism": f"sysctl {self.SYSCTL} in every node"}


def max_rto(value: Optional[float]) -> MaxRto:
    """Factory named in the catalog (``policies.tcp:max_rto``)."""
    return MaxRto(value)


def tcp_recovery(value: Optional[str]) -> Recovery:
    """Factory named in the catalog (``policies.tcp:tcp_recovery``)."""
    return Recovery(value)


def tcp_buffers(value: Optional[str]) -> Buffers:
    """Factory named in the catalog (``policies.tcp:tcp_buffers``)."""
    return Buffers(value)


def sack(value: bool) -> Sack:
    """Factory named in the catalog (``policies.tcp:sack``)."""
    return Sack(value)


def congestion(value: str) -> Congestion:
    """Factory named in the catalog (``policies.tcp:congestion``)."""
    return Congestion(value)
