"""Analytic 802.11 DCF models (pure Python): airtime, single-sender goodput, Bianchi.

These are the yardsticks the medium core (mediumd/core) is tested against.
They are written from IEEE 802.11-2012 (PPDU formats, DCF timing, control
response rates) and G. Bianchi, "Performance analysis of the IEEE 802.11
distributed coordination function", IEEE JSAC 18(3), 2000.  All times are in
microseconds.

    airtime_us("b", 11, 1536)                    -> 1310.0
    single_sender_goodput_mbps("g", 54, 1500)    -> analytic DCF goodput
    bianchi_goodput_mbps(10, "b", 11, 1500)      -> saturation goodput, 10 senders
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional

from harness.kernel.wireless import DSSS_RATES, OFDM_RATES

#: Legacy rates (Mbit/s) per PHY, in hwsim's rate-index order (the radios' own rate sets,
#: ``harness.kernel.wireless``; 802.11a, which the radios are not given, for the models only).
RATES = {
    "b": list(DSSS_RATES),
    "g": list(DSSS_RATES + OFDM_RATES),
    "a": list(OFDM_RATES),
}
DSSS = set(DSSS_RATES)
#: OFDM data bits per symbol (20 MHz channel).
NDBPS: Dict[float, int] = {6: 24, 9: 36, 12: 48, 18: 72, 24: 96, 36: 144, 48: 192, 54: 216}
#: Mandatory rates per modulation class: the fallback for control responses.
MANDATORY = {1, 2, 5.5, 11, 6, 12, 24}
#: Default BSS basic rate sets (as in mediumd's core).
DEFAULT_BASIC = {"b": [1, 2], "g": [1, 2, 5.5, 11, 6, 12, 24], "a": [6, 12, 24]}

ACK_LEN, CTS_LEN, RTS_LEN = 14, 14, 20
#: MAC header (24) + FCS (4) + LLC/SNAP (8) bytes around an IP packet.
DEFAULT_OVERHEAD = 36


@dataclass(frozen=True)
class Timing:
    """DCF timing of a PHY, microseconds."""
    slot: float
    sifs: float
    difs: float
    eifs: float
    cw_min: int
    cw_max: int


def timing(phy: str, short_slot: bool = True) -> Timing:
    """Slot/SIFS/DIFS/EIFS/CW of a PHY; EIFS uses the lowest mandatory-rate ACK."""
    if phy == "a":
        return Timing(9, 16, 34, 16 + 34 + 44, 15, 1023)
    if phy == "g" and short_slot:
        return Timing(9, 10, 28, 10 + 28 + 304, 15, 1023)
    if phy in ("b", "g"):
        return Timing(20, 10, 50, 10 + 50 + 304, 31, 1023)
    raise ValueError(f"unknown phy {phy!r}: expected 'a', 'b' or 'g'")


def airtime_us(phy: str, rate: float, length: int, short_preamble: bool = False) -> float:
    """Duration of a PPDU carrying `length` bytes (MPDU incl. FCS) at `rate` Mbit/s."""
    if rate not in RATES[phy]:
        raise ValueError(f"{rate} Mbit/s is not a rate of 802.11{phy}")
    if rate in DSSS:
        plcp = 96 if (short_preamble and rate != 1) else 192
        return plcp + math.ceil(8 * length / rate - 1e-9)
    nsym = math.ceil((16 + 8 * length + 6) / NDBPS[rate])
    return 20 + 4 * nsym + (6 if phy == "g" else 0)


def control_rate(phy: str, data_rate: float, basic=None) -> float:
    """Rate of the ACK/CTS (and RTS) for a frame at data_rate: the highest basic
    rate <= data_rate of the same modulation class, else the highest mandatory
    one (802.11-2012 9.7.6.5.2)."""
    basic = DEFAULT_BASIC[phy] if basic is None else basic
    same = [r for r in RATES[phy] if (r in DSSS) == (data_rate in DSSS) and r <= data_rate]
    cands = [r for r in same if r in basic] or [r for r in same if r in MANDATORY]
    return max(cands)


@dataclass(frozen=True)
class Exchange:
    """Durations (us) of one frame exchange on an error-free channel."""
    t_data: float
    t_ack: float
    t_rts: float
    t_cts: float
    rts: bool
    tm: Timing

    @property
    def success(self) -> float:
        """Medium time of a successful exchange excluding the DIFS before it."""
        t = self.t_data + self.tm.sifs + self.t_ack
        if self.rts:
            t += self.t_rts + self.t_cts + 2 * self.tm.sifs
        return t

    @property
    def collision(self) -> float:
        """Medium time of a collision incl. the EIFS that follows it (everyone saw
        an errored frame; the senders defer EIFS too, as in mediumd)."""
        return (self.t_rts if self.rts else self.t_data) + self.tm.eifs


def exchange(phy: str, rate: float, payload: int, overhead: int = DEFAULT_OVERHEAD,
             short_preamble: bool = False, rts: bool = False, short_slot: bool = True,
             basic=None) -> Exchange:
    tm = timing(phy, short_slot)
    cr = control_rate(phy, rate, basic)
    return Exchange(
        t_data=airtime_us(phy, rate, payload + overhead, short_preamble),
        t_ack=airtime_us(phy, cr, ACK_LEN, short_preamble),
        t_rts=airtime_us(phy, cr, RTS_LEN, short_preamble),
        t_cts=airtime_us(phy, cr, CTS_LEN, short_preamble),
        rts=rts, tm=tm)


def single_sender_goodput_mbps(phy: str, rate: float, payload: int = 1500, **kw) -> float:
    """One saturated sender, no collisions, no errors:
    T = DIFS + (CWmin/2) slot [+ RTS + SIFS + CTS + SIFS] + DATA + SIFS + ACK."""
    ex = exchange(phy, rate, payload, **kw)
    t = ex.tm.difs + ex.tm.cw_min / 2 * ex.tm.slot + ex.success
    return 8 * payload / t


def bianchi_tau(n: int, w: int, m: int) -> tuple[float, float]:
    """Solve Bianchi's fixed point for n stations, W = CWmin + 1, m doubling stages:
        tau = 2 (1 - 2p) / ((1 - 2p)(W + 1) + p W (1 - (2p)^m)),  p = 1 - (1 - tau)^(n-1)
    Returns (tau, p).  Bisection on tau: the right-hand side decreases in tau."""
    if n < 1:
        raise ValueError("n must be >= 1")

    def rhs(tau: float) -> float:
        p = 1 - (1 - tau) ** (n - 1)
        if abs(1 - 2 * p) < 1e-12:          # removable singularity at p = 1/2
            return 2 / (w + 1 + w * m / 2 * 1)
        return 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - (2 * p) ** m))

    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if rhs(mid) > mid:
            lo = mid
        else:
            hi = mid
    tau = (lo + hi) / 2
    return tau, 1 - (1 - tau) ** (n - 1)


def bianchi_goodput_mbps(n: int, phy: str, rate: float, payload: int = 1500, **kw) -> float:
    """Saturation goodput of n stations in one collision domain (Bianchi 2000):
        S = Ps Ptr P / ((1 - Ptr) slot + Ptr Ps Ts + Ptr (1 - Ps) Tc)
    with Ts = exchange + DIFS and Tc = colliding PPDU + EIFS."""
    ex = exchange(phy, rate, payload, **kw)
    tm = ex.tm
    w = tm.cw_min + 1
    m = round(math.log2((tm.cw_max + 1) / w))
    tau, _ = bianchi_tau(n, w, m)
    ptr = 1 - (1 - tau) ** n
    ps = n * tau * (1 - tau) ** (n - 1) / ptr
    ts = ex.success + tm.difs
    tc = ex.collision
    return ps * ptr * 8 * payload / ((1 - ptr) * tm.slot + ptr * ps * ts + ptr * (1 - ps) * tc)


def delivered_fraction(p_loss: float, attempts: int) -> float:
    """Frames delivered on a link with independent frame loss p and at most
    `attempts` tries (R = attempts - 1 retries): 1 - p^(R+1)."""
    return 1 - p_loss ** attempts


#: IPv4 (20) + TCP with timestamps (32) header bytes.
TCP_IP_HEADERS = 52


def tcp_goodput_mbps(phy: str, rate: float, mss: int = 1448, ack_every: int = 2,
                     ack_rts: Optional[bool] = None, **kw) -> float:
    """One TCP flow over one hop, no collisions or errors (docs/medium.md,
    'Analytic goodput of one sender'):
    each data segment is its own DCF exchange, and every `ack_every` segments
    (2 with delayed ACK, 1 with quickack) a TCP ACK takes one more exchange:
        T = T_frame(mss + 52) + T_frame(52) / ack_every,  goodput = 8 mss / T
    with T_frame = DIFS + CWmin/2 slot + exchange (see single_sender_goodput_mbps).
    `ack_rts` False sends the TCP ACKs bare while `rts` protects the segments (an RTS
    threshold between the two frame lengths); None = as the segments."""
    def t_frame(ip_len: int, **extra) -> float:
        ex = exchange(phy, rate, ip_len, **{**kw, **extra})
        return ex.tm.difs + ex.tm.cw_min / 2 * ex.tm.slot + ex.success
    acks = {} if ack_rts is None else {"rts": ack_rts}
    return 8 * mss / (t_frame(mss + TCP_IP_HEADERS) + t_frame(TCP_IP_HEADERS, **acks) / ack_every)


def rx_start_delay_us(rate: float, short_preamble: bool = False) -> float:
    """aPHY-RX-START-Delay: DSSS 192 us (long) / 96 us (short), OFDM 25 us."""
    if rate in DSSS:
        return 96 if (short_preamble and rate != 1) else 192
    return 25


def ack_timeout_us(phy: str, rate: float, short_preamble: bool = False,
                   short_slot: bool = True, basic=None) -> float:
    """ACKTimeout = SIFS + slot + PHY-RX-START delay of the expected ACK (9.3.2.8)."""
    tm = timing(phy, short_slot)
    return tm.sifs + tm.slot + rx_start_delay_us(control_rate(phy, rate, basic), short_preamble)


def lossy_link_goodput_mbps(phy: str, rate: float, payload: int, p_loss: float, attempts: int,
                            after_failure: str = "eifs", overhead: int = DEFAULT_OVERHEAD,
                            short_preamble: bool = False, short_slot: bool = True,
                            basic=None) -> float:
    """One saturated sender on a link that loses each DATA frame with probability
    p (ACKs clean), at most `attempts` tries, CW doubling per failure.

    Expected medium time per frame:
        E = sum_{k<R} p^k (W_k + T_data) + (1 - p^R)(SIFS + T_ack)
        W_0 = (1 - p^R) DIFS + p^R F + CW_0/2 slot     (after a success / a drop)
        W_k = F + CW_k/2 slot,  CW_k = min((CWmin + 1) 2^k - 1, CWmax)
    where F is where a failed sender resumes counting after its PPDU:
    EIFS ("eifs", mediumd's default) or max(ACKTimeout, DIFS) ("ack_timeout")."""
    ex = exchange(phy, rate, payload, overhead, short_preamble, False, short_slot, basic)
    tm = ex.tm
    if after_failure == "eifs":
        f = tm.eifs
    elif after_failure == "ack_timeout":
        f = max(tm.difs, ack_timeout_us(phy, rate, short_preamble, short_slot, basic))
    else:
        raise ValueError(f"after_failure must be 'eifs' or 'ack_timeout', not {after_failure!r}")
    r = attempts
    p_drop = p_loss ** r
    e = (1 - p_drop) * (tm.sifs + ex.t_ack)
    for k in range(r):
        cw = min((tm.cw_min + 1) * 2 ** k - 1, tm.cw_max)
        wait = ((1 - p_drop) * tm.difs + p_drop * f) if k == 0 else f
        e += p_loss ** k * (wait + cw / 2 * tm.slot + ex.t_data)
    return 8 * payload * (1 - p_drop) / e
