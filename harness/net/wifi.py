"""Infrastructure mode: ``AccessPoint`` (hostapd) and ``ManagedStation`` (wpa_supplicant).

An access point is a hwsim radio in AP mode, run by hostapd, and a Linux bridge ``br0`` in
its namespace that joins the radio to its wired side: every veth link of the access point
(to a switch: ``check`` requires one) is a port of ``br0`` (``attach_lines``), so stations
and the wired LAN are one layer-2 network, like a wireless router in access-point mode.
hostapd starts in ``join`` (the medium runs by then: beacons cross it) and the AP's bitrate
mask is pinned once it beacons (mac80211 checks the mask against the BSS's basic rates).

A managed station is a radio in managed mode; in ``connect`` (every access point beacons by
then) wpa_supplicant associates it with the access point that serves it
(``harness.net.coverage.serving_ap``: the one it is linked to, else the strongest on its
channel; none in range is an error before anything starts). Authentication, association, the
WPA2 handshake and all data cross the medium.

Both daemons are processes of their node (stopped with it); their configs, control sockets
and logs are in run directories of their own (``harness.kernel.hostapd``).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional

from harness.errors import HarnessError
from harness.kernel import hostapd, naming, wireless
from harness.net import coverage
from harness.net.nodes import RadioSpec, WirelessNode, register_node_class
from harness.net.topo import SWITCH_KIND, AccessPointSpec, Topology

if TYPE_CHECKING:
    from harness.medium.spec import MediumSpec
    from harness.net.network import Network

#: The bridge inside an access point's namespace (one per namespace: no run tag needed).
AP_BRIDGE = "br0"


class _DaemonNode(WirelessNode):
    """A wireless node whose radio is run by a daemon with a run directory of its own."""

    daemon: str = ""

    def __init__(self, name: str, netns_name: str, run_tag: str, spec: RadioSpec):
        super().__init__(name, netns_name, run_tag, spec)
        self.run_dir: Optional[Path] = None
        self.proc: Optional[subprocess.Popen] = None

    def start_daemon(self, conf_of: Callable[[Path], str],
                     argv_of: Callable[[Path, Path], List[str]], *, ready: str, what: str,
                     timeout: float, failures: List[str]) -> None:
        """Write the config (``conf_of(run_dir)``) into a fresh run directory, start the
        daemon (``argv_of(conf, log)``) and wait for ``ready`` in its log."""
        self.run_dir = hostapd.new_dir(self.run_tag, self.daemon, self.name)
        conf, log = self.run_dir / f"{self.daemon}.conf", self.run_dir / f"{self.daemon}.log"
        conf.write_text(conf_of(self.run_dir))
        self.proc = self.popen(argv_of(conf, log), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        hostapd.wait_for_event(log, [ready], self.proc, what=f"[{self.name}] {what}",
                               timeout=timeout, failures=failures)

    def queue_interfaces(self) -> List[str]:
        return [r.intf for r in self.radios]

    def stop(self, net: Network) -> None:
        try:
            super().stop(net)
        finally:
            if self.run_dir is not None:
                shutil.rmtree(self.run_dir, ignore_errors=True)
                self.run_dir = None


@register_node_class
class AccessPoint(_DaemonNode):
    """hostapd on a hwsim radio, bridged to the access point's wired links."""

    kind = "access_point"
    mode = "ap"
    daemon = hostapd.AP_DAEMON

    @classmethod
    def check(cls, topo: Topology, name: str, medium: Optional[MediumSpec]) -> None:
        if not any(topo.node_kind(n) == SWITCH_KIND for n in topo.wired_neighbours(name)):
            raise HarnessError(f"access point {name!r} has no switch: link it to one "
                               f"(add_switch('s1'); add_link({name!r}, 's1')): its wired side "
                               "is a port of a switch")

    @property
    def ap(self) -> AccessPointSpec:
        assert isinstance(self.spec, AccessPointSpec)
        return self.spec

    def ssid(self, net: Network) -> str:
        return self.ap.ssid or naming.ap_ssid(net.tag, self.name)

    def setup_lines(self, net: Network) -> List[str]:
        return [f"ip link add {AP_BRIDGE} type bridge", f"ip link set {AP_BRIDGE} up"]

    def attach_lines(self, intf: str, ip: Optional[str]) -> List[str]:
        return [f"ip link set {intf} master {AP_BRIDGE}", f"ip link set {intf} up"]

    def join(self, net: Network) -> None:
        radio = self.radios[0]
        ap = self.ap
        self.start_daemon(
            lambda d: hostapd.hostapd_conf(intf=radio.intf, bridge=AP_BRIDGE,
                                           ctrl_dir=str(d / "ctrl"), ssid=self.ssid(net),
                                           channel=ap.channel, phy=ap.phy, rate=ap.rate,
                                           security=ap.security, passphrase=ap.passphrase),
            hostapd.hostapd_args, ready="AP-ENABLED", what="hostapd",
            timeout=hostapd.AP_TIMEOUT, failures=["AP-DISABLED"])
        lines = wireless.bitrate_lines(radio.intf, ap.phy, ap.rate)
        if ap.ip:
            lines.append(f"ip addr add {ap.ip} dev {AP_BRIDGE}")
            self.ips.insert(0, ap.ip)
        self.script(lines)


@register_node_class
class ManagedStation(_DaemonNode):
    """A station in managed mode: wpa_supplicant associates it with its access point."""

    kind = "managed_station"
    mode = "managed"
    daemon = hostapd.STA_DAEMON

    @classmethod
    def check(cls, topo: Topology, name: str, medium: Optional[MediumSpec]) -> None:
        coverage.serving_ap(topo, name, medium)

    def join(self, net: Network) -> None:
        """Up, bitrate mask (accepted before association), address; no association yet."""
        radio = self.radios[0]
        ip = self.station.ip
        assert ip is not None  # add_station assigns one
        self.script([f"ip link set {radio.intf} up",
                     *wireless.bitrate_lines(radio.intf, radio.phy_mode, radio.rate),
                     f"ip addr add {ip} dev {radio.intf}"])
        self.ips.insert(0, ip)

    def connect(self, net: Network) -> None:
        """Associate (every access point beacons by now) and wait until the link is up."""
        name = coverage.serving_ap(net.topo, self.name, net.medium_spec())
        ap_node = net[name]
        assert isinstance(ap_node, AccessPoint)
        ap = ap_node.ap
        radio = self.radios[0]
        self.start_daemon(
            lambda d: hostapd.supplicant_conf(ctrl_dir=str(d / "ctrl"), ssid=ap_node.ssid(net),
                                              freq=radio.freq, security=ap.security,
                                              passphrase=ap.passphrase),
            lambda conf, log: hostapd.supplicant_args(radio.intf, conf, log),
            ready="CTRL-EVENT-CONNECTED", what=f"association with {name}",
            timeout=hostapd.ASSOC_TIMEOUT, failures=["WRONG_KEY", "CTRL-EVENT-ASSOC-REJECT"])

