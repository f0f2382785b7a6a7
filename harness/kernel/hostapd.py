"""hostapd (access points) and wpa_supplicant (stations in managed mode) of a run.

An access point is ``hostapd`` on a hwsim radio in the AP's namespace; a station associates
with ``wpa_supplicant`` in its own. Both run in the foreground as processes of their node
(stopped with the run), write their log to a file and keep their control sockets in a run
directory of their own (``hx-<tag>-hostapd-<node>-*`` / ``hx-<tag>-wpa-<node>-*``, claimed
with ``cleanup.claim``; this module registers the clean-up of a killed run's directories, and
the namespace clean-up kills the daemons, which carry ``HARNESS_RUN``). Every frame of the
association (probe, authentication, association, the WPA2 4-way handshake on EAPOL) and of
the data crosses the medium like any other.

802.11g by default, open; ``wpa2`` = WPA2-PSK with CCMP. No 802.11n (HT), no WMM: the medium
models legacy DCF only. The basic rate set follows ``wireless.basic_rates`` (a fixed OFDM
rate is in it, as mac80211 requires of a bitrate mask; docs/kernel.md, 'iw').

``*_conf`` functions are pure (unit-tested); ``wait_for_event`` reads a daemon's log file.
"""
from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import List, Optional, Sequence

from harness.errors import HarnessError
from harness.kernel import cleanup, naming, wireless

SECURITY = ("open", "wpa2")
#: hostapd's hw_mode per PHY.
HW_MODE = {"b": "b", "g": "g"}
#: How long an access point may take to start beaconing, and a station to associate (guest
#: seconds; generous: in virtual time the clock jumps ahead while the guest waits for the disk,
#: as when a daemon starts the first time after boot, harness.kernel.ovs.START_TIMEOUT).
AP_TIMEOUT = 120.0
ASSOC_TIMEOUT = 120.0
AP_DAEMON = "hostapd"
STA_DAEMON = "wpa"


def check_security(security: str, passphrase: Optional[str], where: str = "access point") -> None:
    """``open``, or ``wpa2`` with an 8..63 character printable ASCII passphrase."""
    if security not in SECURITY:
        raise HarnessError(f"{where}: security {security!r} is invalid: allowed "
                           + ", ".join(SECURITY))
    if security == "open":
        if passphrase is not None:
            raise HarnessError(f"{where}: a passphrase needs security: wpa2")
        return
    ok = isinstance(passphrase, str) and 8 <= len(passphrase) <= 63 and all(
        32 <= ord(c) < 127 for c in passphrase)
    if not ok:
        raise HarnessError(f"{where}: security wpa2 needs a passphrase of 8..63 printable "
                           f"ASCII characters (got {passphrase!r})")


def check_ssid(ssid: str, where: str = "access point") -> str:
    if not isinstance(ssid, str) or not 1 <= len(ssid.encode()) <= 32 or any(
            c in ssid for c in "\n\r\"'") or not ssid.isprintable():
        raise HarnessError(f"{where}: ssid {ssid!r} is invalid: allowed 1..32 printable "
                           "characters without quotes")
    return ssid


def _rates_conf(rates: Sequence[float]) -> str:
    """hostapd lists rates in units of 100 kbit/s."""
    return " ".join(str(int(round(r * 10))) for r in rates)


def hostapd_conf(*, intf: str, bridge: str, ctrl_dir: str, ssid: str, channel: int, phy: str,
                 rate: Optional[float], security: str = "open",
                 passphrase: Optional[str] = None) -> str:
    """hostapd.conf of an access point bridged (``bridge``) to its wired side."""
    check_ssid(ssid)
    check_security(security, passphrase)
    wireless.channel_freq(channel)
    lines = [f"interface={intf}", f"bridge={bridge}", "driver=nl80211",
             f"ctrl_interface={ctrl_dir}", f"ssid={ssid}",
             f"hw_mode={HW_MODE[wireless.check_phy_mode(phy)]}", f"channel={channel}",
             "ieee80211n=0", "wmm_enabled=0",
             f"supported_rates={_rates_conf(wireless.RATES[phy])}",
             f"basic_rates={_rates_conf(wireless.basic_rates(phy, rate))}",
             "ignore_broadcast_ssid=0", "auth_algs=1"]
    if security == "wpa2":
        lines += ["wpa=2", "wpa_key_mgmt=WPA-PSK", "rsn_pairwise=CCMP",
                  f"wpa_passphrase={passphrase}"]
    return "\n".join(lines) + "\n"


def supplicant_conf(*, ctrl_dir: str, ssid: str, freq: int, security: str = "open",
                    passphrase: Optional[str] = None) -> str:
    """wpa_supplicant.conf of a station that associates with one SSID on one channel."""
    check_ssid(ssid, "station")
    check_security(security, passphrase, "station")
    net = [f'  ssid="{ssid}"', f"  scan_freq={freq}", f"  freq_list={freq}"]
    if security == "wpa2":
        net += ['  key_mgmt=WPA-PSK', '  proto=RSN', '  pairwise=CCMP', '  group=CCMP',
                f'  psk="{passphrase}"']
    else:
        net.append("  key_mgmt=NONE")
    return f"ctrl_interface={ctrl_dir}\nap_scan=1\nnetwork={{\n" + "\n".join(net) + "\n}\n"


def hostapd_args(conf: Path, log: Path) -> List[str]:
    return ["hostapd", "-f", str(log), str(conf)]


def supplicant_args(intf: str, conf: Path, log: Path) -> List[str]:
    return ["wpa_supplicant", "-i", intf, "-D", "nl80211", "-c", str(conf), "-f", str(log)]


def wait_for_event(log: Path, needles: Sequence[str], proc: subprocess.Popen, *, what: str,
                   timeout: float, failures: Sequence[str] = ()) -> str:
    """Block until the daemon's log file has a line with one of ``needles``; HarnessError with
    the log's tail if the daemon exits, logs one of ``failures``, or the time runs out.
    Returns the matching line. Reads a file: no process per poll (~60 ms each under TCG)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            seen = log.read_text(errors="replace")
        except OSError:
            seen = ""
        for line in seen.splitlines():
            if any(n in line for n in needles):
                return line
            if any(f in line for f in failures):
                raise HarnessError(f"{what}: {line.strip()}\n{seen[-800:].strip()}")
        if proc.poll() is not None:
            raise HarnessError(f"{what}: the daemon exited (code {proc.returncode}): "
                               f"{seen[-800:].strip() or 'no log'}")
        if time.monotonic() > deadline:
            raise HarnessError(f"{what}: not within {timeout:g} s: "
                               f"{seen[-800:].strip() or 'no log'}")
        time.sleep(0.1)


def new_dir(tag: str, daemon: str, node: str) -> Path:
    """The run directory of a node's hostapd or wpa_supplicant (claimed by this process)."""
    return cleanup.new_run_dir(naming.daemon_dir_prefix(tag, daemon, node))


# -- clean-up of killed runs (registered with harness.kernel.cleanup) -----------------------
cleanup.register_run_dirs("hostapd run directories",
                          lambda tag: naming.daemon_dir_pattern(tag, AP_DAEMON),
                          "hostapd run directory")
cleanup.register_run_dirs("wpa_supplicant run directories",
                          lambda tag: naming.daemon_dir_pattern(tag, STA_DAEMON),
                          "wpa_supplicant run directory")
