"""802.11 settings of one radio, applied with ``iw`` inside the node's namespace.

Functions named ``*_lines`` only build shell lines (pure, unit-tested); ``Network`` runs
them in one process per node (``Node.script``) because every process costs ~60 ms under TCG.
Working command lines and their pitfalls (docs/kernel.md, 'iw'):
- ``NOHT`` at join, then ``set bitrates legacy-2.4 R ht-mcs-2.4`` pins a legacy rate;
- an OFDM rate (6..54) is refused unless the IBSS/mesh was joined with a matching basic rate;
- RTS threshold, retry limits and tx power are phy settings (``iw phy X set ...``) and must
  run in the namespace that owns the phy. hwsim does not act on them itself: the medium
  reads RTS per frame and enforces the retry limit the harness records.
"""
from __future__ import annotations

import shlex
import time
from typing import Dict, Iterable, List, Optional, Sequence, Union

from harness.errors import HarnessError
from harness.params import ParamSpec

MODES = ("ibss", "mesh")
PHY_MODES = ("b", "g")
DSSS_RATES = (1.0, 2.0, 5.5, 11.0)
OFDM_RATES = (6.0, 9.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0)
RATES = {"b": DSSS_RATES, "g": DSSS_RATES + OFDM_RATES}
#: The rates as an experiment file names them: whole numbers as int (``rate: 2`` is stored as
#: 2, and run ids hash it), then ``auto`` for rate control (minstrel).
RATE_CHOICES = tuple(int(r) if r.is_integer() else r for r in DSSS_RATES + OFDM_RATES) + ("auto",)
#: iw interface type per harness mode: the joining modes, an access point (hostapd) and a
#: station in managed mode (wpa_supplicant).
IFTYPE = {"ibss": "ibss", "mesh": "mp", "ap": "__ap", "managed": "managed"}

Rts = Union[None, bool, int]


# -- the rules of a radio's settings: each declared once, checked everywhere with it -------
#: The 2.4 GHz channels (1..13, and 14).
CHANNEL = ParamSpec("channel", "int", "2.4 GHz channel", default=1, min=1, max=14)
#: An RTS threshold in bytes (802.11's dot11RTSThreshold range, as ``iw`` takes it).
RTS_THRESHOLD = ParamSpec("rts_threshold", "int", "RTS/CTS only before frames longer than "
                          "this many bytes (iw phy set rts N)", min=0, max=2347)
#: The largest retry limit (maximum transmissions of a frame): mac80211 refuses
#: ``iw phy X set retry`` above IEEE80211_MAX_TX_RETRY (docs/kernel.md, "iw"). mediumd itself
#: takes up to 255, but no radio of the harness can hold more than this.
RETRY_LIMIT_MAX = 31
RETRY_LIMIT = ParamSpec("retry_limit", "int", "short and long retry limit",
                        min=1, max=RETRY_LIMIT_MAX)
#: The transmit powers a topology may give a radio (dBm).
TXPOWER_DBM = ParamSpec("txpower_dbm", "float", "transmit power", min=-10.0, max=30.0)
#: The antenna gains a topology may give a radio (dBi; the medium adds them to the link budget).
ANTENNA_GAIN_DBI = ParamSpec("antenna_gain_dbi", "float", "antenna gain (dBi)", min=-20.0,
                             max=40.0)


def channel_freq(channel: int) -> int:
    """2.4 GHz channel number -> centre frequency (MHz)."""
    channel = CHANNEL.validate(channel, "channel")
    return 2484 if channel == 14 else 2407 + 5 * channel


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise HarnessError(f"mode {mode!r} is invalid: allowed {', '.join(MODES)}")
    return mode


def check_phy_mode(phy: str) -> str:
    if phy not in PHY_MODES:
        raise HarnessError(f"phy {phy!r} is invalid: allowed {', '.join(PHY_MODES)}")
    return phy


def check_rate(rate: Optional[float], phy: str) -> Optional[float]:
    """A fixed legacy rate (Mbit/s) allowed on this PHY, or None for automatic (minstrel)."""
    if rate is None:
        return None
    allowed = RATES[check_phy_mode(phy)]
    try:
        value = float(rate)
    except (TypeError, ValueError):
        value = -1.0
    if value not in allowed:
        raise HarnessError(f"rate {rate!r} is invalid for 802.11{phy}: allowed None (auto) or "
                           + ", ".join(_fmt(r) for r in allowed) + " Mbit/s")
    return value


def check_rts(rts: Rts) -> Rts:
    if rts is None or isinstance(rts, bool):
        return rts
    if isinstance(rts, int) and RTS_THRESHOLD.accepts(rts):
        return rts
    raise HarnessError(f"rts {rts!r} is invalid: allowed None (leave), True (always), "
                       f"False (off) or a threshold in bytes, {RTS_THRESHOLD.allowed()}")


def _fmt(rate: float) -> str:
    return f"{rate:g}"


def basic_rates(phy: str, rate: Optional[float]) -> List[float]:
    """Basic rate set for the join: must intersect the fixed-rate mask (mac80211 rule)."""
    if phy == "g" and rate is not None and rate in OFDM_RATES:
        return sorted({6.0, rate})
    return list(DSSS_RATES)


def bitrate_mask(phy: str, rate: Optional[float]) -> List[float]:
    """Legacy rates minstrel may use: the fixed one, or all rates of the PHY."""
    return [rate] if rate is not None else list(RATES[phy])


def rts_arg(rts: Rts) -> Optional[str]:
    if rts is None:
        return None
    if rts is True:
        return "0"
    if rts is False:
        return "off"
    return str(int(rts))


# -- shell lines -------------------------------------------------------------------------
def prepare_lines(phy: str, intf: str, mode: str, *, rts: Rts = None,
                  retry_limit: Optional[int] = None, txpower_dbm: Optional[float] = None
                  ) -> List[str]:
    """Create the interface on the phy and apply phy settings (before the medium starts)."""
    q = shlex.quote
    if mode not in IFTYPE:
        raise HarnessError(f"mode {mode!r} is invalid: allowed {', '.join(IFTYPE)}")
    lines = [f"iw phy {q(phy)} interface add {q(intf)} type {IFTYPE[mode]}"]
    arg = rts_arg(check_rts(rts))
    if arg is not None:
        lines.append(f"iw phy {q(phy)} set rts {arg}")
    if retry_limit is not None:
        lines += retry_lines(phy, retry_limit)
    if txpower_dbm is not None:
        lines.append(f"iw phy {q(phy)} set txpower fixed {int(round(float(txpower_dbm) * 100))}")
    return lines


def retry_lines(phy: str, retry_limit: int) -> List[str]:
    """Short and long retry limit of a phy (maximum transmissions of a frame)."""
    retry_limit = RETRY_LIMIT.validate(retry_limit, "retry_limit")
    return [f"iw phy {shlex.quote(phy)} set retry short {retry_limit} long {retry_limit}"]


def join_lines(intf: str, mode: str, *, network_id: str, freq: int, phy: str,
               rate: Optional[float], bssid: str, auto_open_plinks: bool,
               beacon_tu: Optional[int] = None,
               mesh_params: Optional[Dict[str, int]] = None) -> List[str]:
    """Bring the interface up, join the IBSS cell or mesh (a mesh point beaconing every
    ``beacon_tu`` TU if given, else the kernel's 100, with ``mesh_params`` of iw's mesh
    parameters), then pin the bitrate mask."""
    q = shlex.quote
    basics = basic_rates(phy, rate)
    basic = ",".join(_fmt(r) for r in basics)
    mcast = _fmt(min(basics))
    lines = [f"ip link set {q(intf)} up"]
    if check_mode(mode) == "ibss":
        lines.append(f"iw dev {q(intf)} ibss join {q(network_id)} {freq} NOHT fixed-freq "
                     f"{bssid} basic-rates {basic} mcast-rate {mcast}")
    else:
        lines.append(f"iw dev {q(intf)} mesh join {q(network_id)} freq {freq} NOHT "
                     f"basic-rates {basic} mcast-rate {mcast} "
                     + (f"beacon-interval {beacon_tu} " if beacon_tu else "")
                     + "".join(f"{k}={v} " for k, v in (mesh_params or {}).items())
                     + f"mesh_auto_open_plinks={1 if auto_open_plinks else 0}")
    return lines + bitrate_lines(intf, phy, rate)


def bitrate_lines(intf: str, phy: str, rate: Optional[float]) -> List[str]:
    """Pin the bitrate mask (a managed station or an access point: no join of its own)."""
    mask = " ".join(_fmt(r) for r in bitrate_mask(phy, rate))
    return [f"iw dev {shlex.quote(intf)} set bitrates legacy-2.4 {mask} ht-mcs-2.4"]


def plink_lines(intf: str, open_peers: Iterable[str], block_peers: Iterable[str]) -> List[str]:
    """802.11s: open peer links to declared neighbours only, block everyone else."""
    q = shlex.quote
    lines = [f"iw dev {q(intf)} station set {mac} plink_action open" for mac in open_peers]
    # a non-neighbour not heard yet has no station entry to block: not an error
    lines += [f"iw dev {q(intf)} station set {mac} plink_action block 2>/dev/null || true"
              for mac in block_peers]
    return lines


def neighbour_filter_lines(intf: str, table: str, neighbour_macs: Sequence[str]) -> List[str]:
    """IBSS without a medium: drop frames from anyone but the declared neighbours.

    With no medium every hwsim radio hears every other; this nft ingress filter
    makes the declared wireless links the only ones that carry traffic (docs/kernel.md,
    'Without a medium').
    """
    macs = ", ".join(neighbour_macs) if neighbour_macs else "ff:ff:ff:ff:ff:fe"
    rules = (f"table netdev {table} {{\n"
             f"  chain rx {{\n"
             f"    type filter hook ingress device {intf} priority 0; policy drop;\n"
             f"    ether saddr {{ {macs} }} accept\n"
             f"  }}\n"
             f"}}")
    return [f"nft -f - <<'EOF'\n{rules}\nEOF"]


def wait_for_peers(node, intf: str, macs: Sequence[str], timeout: float = 15.0) -> None:
    """Wait until every MAC appears in ``station dump`` (beacons heard) before plink actions."""
    want = {m.lower() for m in macs}
    deadline = time.monotonic() + timeout
    while True:
        out = node.cmd(["iw", "dev", intf, "station", "dump"], check=False).stdout
        seen = {line.split()[1].lower() for line in out.splitlines()
                if line.startswith("Station ")}
        if want <= seen:
            return
        if time.monotonic() > deadline:
            missing = ", ".join(sorted(want - seen))
            raise HarnessError(f"[{node.name}] mesh peers not heard within {timeout:g} s: {missing}")
        time.sleep(0.3)
