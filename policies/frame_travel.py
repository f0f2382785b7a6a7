"""How long one frame takes to cross a multi-hop 802.11 path when every hop may retry it, and
the airtime link metric 802.11s routes by: paper 002's arithmetic as pure functions.

Why here: the run-time retry-limit policy (``policies.airtime_retry``, the paper's Eq. 5) needs
the travel time to pick its limit, and the paper's report (``studies.p002_mesh_retry.paper``) needs
the same numbers for its tables and its Fig. 2; this is the lowest layer both may import.

The model (Rethfeldt et al., §III; docs/papers.md "Paper 002"): a frame crosses ``hops``
hops; on each, the first transmission costs ``T_F`` and its ACK ``T_ACK``, and each of ``R``
retransmissions costs ``T_ARQ[i]`` (ACK timeout, AIFS, the back-off of the i-th retry, the
frame again). Eq. (1) is one hop, Eq. (4) multiplies by the hop count:

    T_F      = AIFS + CW_init·ST + T_txF
    T_ACK    = SIFS + T_txACK
    T_ARQ[i] = T_ACK + AIFS + CW[i]·ST + T_txF,   CW[i] = min((CWmin + 1)·2^i - 1, CWmax)
    T_Sum    = T_F + T_ACK + Σ_{i<R} T_ARQ[i],    T_MultiHop = hops · T_Sum

with Table II's timing (802.11b/g mixed, AC_BE) and Table III's three cases: *best* (54 Mbit/s
data, no back-off), *worst* (6 Mbit/s, the whole contention window every time), *normal*
(24 Mbit/s, half of it). The paper indexes the windows from CWmin: ``CW_init`` = CW[0] = 15,
then 31, 63, ... up to CWmax = 1023 (the normal case takes halves, rounded down: 7, 15, 31,
...), so the first retransmission backs off over the same window as the first transmission
(doubling before the first retransmission, as 802.11 does, gives 287.2 ms where the paper prints
236.8). This reading reproduces every number the paper prints
(236.8 ms normal at 5 hops and R = 9; 60.8 ms best at 5 hops and R = 31; the worst case
crossing RTO_min = 200 ms at R = 7 from 4 hops on); tests/unit/test_frame_travel.py checks them.

Eq. (2), the airtime link metric: ``c_a = (O + B_t / r) / (1 - e_fr)`` µs for a test frame of
``B_t`` bits at ``r`` Mbit/s with frame-error rate ``e_fr``; HWMP adds it up hop by hop.
Linux (``mac80211``, docs/kernel.md "Mesh metric") computes it in fixed point with B_t = 8192
bits, O = 1 µs, and, where the rate control reports an expected throughput (minstrel does),
takes that throughput as ``r`` and ``e_fr = 0``: ``kernel_airtime_metric`` is that arithmetic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from harness.errors import HarnessError
from harness.kernel.mesh import MeshPath
from harness.kernel.wireless import RETRY_LIMIT_MAX

#: Linux's minimum retransmission timeout (TCP_RTO_MIN), µs: the bound Eq. (5) keeps under.
RTO_MIN_US = 200_000.0


@dataclass(frozen=True)
class MacTiming:
    """EDCA timing of one access category, µs (the paper's Table II)."""

    slot: float = 20.0          # ST
    sifs: float = 10.0
    aifs: float = 70.0          # AIFS[AC_BE] = SIFS + 3 ST
    cw_min: int = 15
    cw_max: int = 1023


#: Table II: 802.11b/g mixed mode, AC_BE.
TABLE_II = MacTiming()


@dataclass(frozen=True)
class Case:
    """One column of Table III: the data rate, the airtimes it gives, and how much of the
    contention window a back-off takes (``none``, ``half`` or ``full``)."""

    name: str
    data_rate: float            # Mbit/s
    t_tx_frame: float           # µs, a 1500-byte data frame
    t_tx_ack: float             # µs, a 20-byte ACK at 6 Mbit/s
    backoff: str


#: Table III (ACK 20 bytes and data 1500 bytes; the ACK always at 6 Mbit/s).
CASES: Dict[str, Case] = {
    "best": Case("best", 54.0, 250.0, 50.0, "none"),
    "worst": Case("worst", 6.0, 2070.0, 50.0, "full"),
    "normal": Case("normal", 24.0, 530.0, 50.0, "half"),
}
BACKOFFS = ("none", "half", "full")


def case(name: str) -> Case:
    """Table III's case by name; a clear error for any other."""
    try:
        return CASES[name]
    except KeyError:
        raise HarnessError(f"case {name!r} is unknown: allowed {', '.join(CASES)}") from None


def contention_window(failures: int, timing: MacTiming = TABLE_II) -> int:
    """The contention window after ``failures`` failed transmissions: CWmin doubled (plus one)
    per failure, capped at CWmax (15, 31, 63, ... 1023)."""
    if failures < 0:
        raise ValueError(f"failures {failures} < 0")
    return min((timing.cw_min + 1) * 2 ** failures - 1, timing.cw_max)


def backoff_slots(cw: int, backoff: str) -> int:
    """Slots a back-off takes in a case: none, half the window (rounded down), or all of it."""
    if backoff == "none":
        return 0
    if backoff == "half":
        return cw // 2
    if backoff == "full":
        return cw
    raise HarnessError(f"backoff {backoff!r} is unknown: allowed {', '.join(BACKOFFS)}")


def _frame_airtime(c: Case, t_tx_frame: Optional[float]) -> float:
    return c.t_tx_frame if t_tx_frame is None else float(t_tx_frame)


def t_first(c: Case, timing: MacTiming = TABLE_II, t_tx_frame: Optional[float] = None) -> float:
    """T_F: AIFS, the first back-off, the frame."""
    return timing.aifs + backoff_slots(timing.cw_min, c.backoff) * timing.slot \
        + _frame_airtime(c, t_tx_frame)


def t_ack(c: Case, timing: MacTiming = TABLE_II) -> float:
    """T_ACK: SIFS and the ACK (also the time a sender waits before it knows one is missing)."""
    return timing.sifs + c.t_tx_ack


def t_retransmission(i: int, c: Case, timing: MacTiming = TABLE_II,
                     t_tx_frame: Optional[float] = None) -> float:
    """T_ARQ[i], the i-th retransmission (0-based): the missing ACK's time, AIFS, the back-off
    from CW[i] (the paper's indexing: CW[0] = CWmin), the frame again."""
    cw = contention_window(i, timing)
    return t_ack(c, timing) + timing.aifs + backoff_slots(cw, c.backoff) * timing.slot \
        + _frame_airtime(c, t_tx_frame)


def _check_retries(retries: int) -> int:
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise HarnessError(f"retries {retries!r} is invalid: allowed an integer >= 0")
    return retries


def _check_hops(hops: int) -> int:
    if isinstance(hops, bool) or not isinstance(hops, int) or hops < 1:
        raise HarnessError(f"hops {hops!r} is invalid: allowed an integer >= 1")
    return hops


def t_sum(retries: int, c: Case, timing: MacTiming = TABLE_II,
          t_tx_frame: Optional[float] = None) -> float:
    """Eq. (1): one frame over one hop with ``retries`` ARQ retransmissions, µs."""
    r = _check_retries(retries)
    return t_first(c, timing, t_tx_frame) + t_ack(c, timing) + sum(
        t_retransmission(i, c, timing, t_tx_frame) for i in range(r))


def t_multihop(hops: int, retries: int, c: Case, timing: MacTiming = TABLE_II,
               t_tx_frame: Optional[float] = None) -> float:
    """Eq. (4): the same retries on every one of ``hops`` hops, µs."""
    return _check_hops(hops) * t_sum(retries, c, timing, t_tx_frame)


def first_exceeding(hops: int, c: Case, bound_us: float = RTO_MIN_US,
                    max_retries: int = RETRY_LIMIT_MAX, timing: MacTiming = TABLE_II) -> Optional[int]:
    """The smallest retry count whose T_MultiHop exceeds ``bound_us`` (None: none up to
    ``max_retries``)."""
    for r in range(max_retries + 1):
        if t_multihop(hops, r, c, timing) > bound_us:
            return r
    return None


def travel_table(c: Case, hops: Iterable[int], retries: Iterable[int],
                 timing: MacTiming = TABLE_II) -> Dict[int, Dict[int, float]]:
    """``{hops: {retries: T_MultiHop in ms}}``: the data of the paper's Fig. 2."""
    rs = list(retries)
    return {h: {r: t_multihop(h, r, c, timing) / 1000.0 for r in rs} for h in hops}


# -- Eq. (2): the airtime link metric ------------------------------------------------------
#: Linux's test frame (``TEST_FRAME_LEN``), bits; the paper prints "8182 bits (1 kB)".
TEST_FRAME_BITS = 8192
#: The paper's value as printed (a typo for 8192, or for 1 kB = 8192 bits).
PAPER_TEST_FRAME_BITS = 8182
#: O_ca + O_p, µs: Linux and open80211s sum the overheads to 1.
METRIC_OVERHEAD_US = 1.0
#: mac80211's fixed point: values scaled by 2^8.
_SHIFT = 8
#: The largest metric mac80211 reports (a link it will not use).
MAX_METRIC = 0xFFFFFFFF


def airtime_metric(rate_mbps: float, frame_error: float = 0.0, *,
                   test_frame_bits: float = TEST_FRAME_BITS,
                   overhead_us: float = METRIC_OVERHEAD_US) -> float:
    """Eq. (2): c_a = (O + B_t / r) / (1 - e_fr), µs, for one link."""
    if not (isinstance(rate_mbps, (int, float)) and rate_mbps > 0):
        raise HarnessError(f"rate {rate_mbps!r} is invalid: allowed a rate > 0 Mbit/s")
    if not 0.0 <= frame_error < 1.0:
        raise HarnessError(f"frame error rate {frame_error!r} is invalid: allowed 0 <= e < 1")
    return (overhead_us + test_frame_bits / rate_mbps) / (1.0 - frame_error)


def kernel_airtime_metric(rate_kbps: float, fail_percent: float = 0.0) -> int:
    """The metric mac80211 (Linux 6.1) reports for a peer link, in its own integer arithmetic:
    ``rate_kbps`` is the rate control's expected throughput (then ``fail_percent`` is not used
    by the kernel: pass 0), or, where the rate control gives none, the moving average of the
    transmit rate with ``fail_percent`` the moving average of failed frames (0..100). The rate
    goes in units of 100 kbit/s, rounded up; overhead 1, test frame 8192 bits, error scaled by
    2^8. A failure average above the kernel's threshold or a zero rate gives ``MAX_METRIC``."""
    rate = math.ceil(rate_kbps / 100.0)
    if rate <= 0 or fail_percent >= 100:
        return MAX_METRIC
    err = (int(fail_percent) << _SHIFT) // 100
    tx_time = (1 << _SHIFT) + 10 * (TEST_FRAME_BITS << _SHIFT) // rate
    retx = (1 << (2 * _SHIFT)) // ((1 << _SHIFT) - err)
    return (tx_time * retx) >> (2 * _SHIFT)


def path_metric(link_metrics: Sequence[float]) -> float:
    """HWMP's path metric: the links' metrics added up along the path."""
    return float(sum(link_metrics))


# -- Eq. (5): a retry limit from the diameter's metric ---------------------------------------
#: Bits of the frame whose travel time is bounded: a 1500-byte data frame.
DATA_FRAME_BITS = 1500 * 8


def diameter(routes: Sequence[MeshPath]) -> Tuple[float, int, List[MeshPath]]:
    """(metric, hops, routes used) of the network diameter as one node estimates it (Eq. 5)
    from its path table (``harness.kernel.mesh``): the two largest path metrics towards
    destinations reached through different next hops, added; a node whose every route leaves
    through one neighbour (a chain's end) has only the largest. No routes: (0, 0, [])."""
    best: Dict[str, MeshPath] = {}
    for r in routes:
        if r.next_hop not in best or r.metric > best[r.next_hop].metric:
            best[r.next_hop] = r
    top = sorted(best.values(), key=lambda r: (-r.metric, r.next_hop))[:2]
    return sum(r.metric for r in top), sum(r.hops for r in top), top


def frame_airtime_from_metric(metric: float, hops: int,
                              frame_bits: float = DATA_FRAME_BITS) -> float:
    """Airtime of one data frame summed over a path of ``hops`` links with total ``metric``,
    µs: each link's metric is (1 + 8192/r) / (1 - e), so ``frame_bits`` take
    ``frame_bits / 8192`` times the metric less its per-link overhead."""
    if hops <= 0:
        return 0.0
    return max(0.0, metric - hops * METRIC_OVERHEAD_US) * frame_bits / TEST_FRAME_BITS


def t_multihop_from_metric(retries: int, metric: float, hops: int, c: Case,
                           timing: MacTiming = TABLE_II) -> float:
    """Eq. (4) over a path whose links differ: the case's timing and back-off on every hop,
    and each hop's frame airtime taken from the metric, µs (the metric already counts the
    expected retransmissions of a lossy link: so it bounds the travel time from above)."""
    _check_retries(retries)
    if hops <= 0:
        return 0.0
    fixed = t_multihop(hops, retries, c, timing, t_tx_frame=0.0)
    return fixed + (retries + 1) * frame_airtime_from_metric(metric, hops)


def retry_limit_for(metric: float, hops: int, c: Case, bound_us: float = RTO_MIN_US,
                    timing: MacTiming = TABLE_II, limits: Sequence[int] = tuple(range(1, RETRY_LIMIT_MAX + 1))
                    ) -> int:
    """Eq. (5): the largest retry limit whose T_MultiHop over the diameter stays below
    ``bound_us``; the smallest allowed limit when none does."""
    fitting = [r for r in sorted(limits) if t_multihop_from_metric(r, metric, hops, c, timing)
               < bound_us]
    return fitting[-1] if fitting else min(limits)
