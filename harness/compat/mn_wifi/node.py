"""``mn_wifi.node``: the node objects a Mininet-WiFi script holds (``sta1 = net.addStation(...)``).

A node is first a description (its parameters, as the script gave them) and, once the network
is built, the handle of a harness node: ``cmd`` runs a shell command in its namespace and
returns the output, ``IP``/``MAC`` answer from the running network, ``setPosition`` moves its
radio in the medium at once, ``setIP``/``setIP6`` add addresses. The classes a script may name
(``Station``, ``OVSKernelAP``, ``UserAP``, ...) exist so their imports work; what the harness
cannot do with one (``Car``) is refused when it is used.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.compat.mn_wifi.net import Mininet_wifi


def parse_position(value: Any, name: str) -> Tuple[float, float, float]:
    """``'10,20,0'`` / ``'10,20'`` / ``(10, 20, 0)`` / ``[10, 20]`` -> (x, y, z) metres."""
    parts: Sequence[Any] = value if isinstance(value, (list, tuple)) else []
    if isinstance(value, str):
        parts = [p for p in value.replace(" ", "").split(",") if p != ""]
    try:
        nums = [float(p) for p in parts]
    except (TypeError, ValueError):
        nums = []
    if len(nums) not in (2, 3):
        raise HarnessError(f"{name}: position {value!r} is invalid: allowed 'x,y,z' or 'x,y' "
                           "in metres (a string, list or tuple)")
    return (nums[0], nums[1], nums[2] if len(nums) == 3 else 0.0)


class Node:
    """What every Mininet-WiFi node offers once the network runs."""

    kind = "node"

    def __init__(self, name: str, net: Mininet_wifi, params: Dict[str, Any]):
        self.name = name
        self.net = net
        self.params: Dict[str, Any] = dict(params)
        self.ip6: List[str] = []

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def __str__(self) -> str:
        return self.name

    # -- the running node -------------------------------------------------------------------
    def _node(self) -> Any:
        return self.net.running_node(self.name)

    def cmd(self, *args: Any, **kwargs: Any) -> str:
        """Run a shell command in the node and return its output (stdout and stderr), as
        Mininet's ``cmd`` does; ``cmd('a', 'b')`` joins the words."""
        if kwargs:
            raise HarnessError(f"{self.name}.cmd: keyword arguments ({', '.join(kwargs)}) are "
                               "not supported; pass the command line")
        line = " ".join(str(a) for a in args)
        proc = self._node().cmd(["sh", "-c", line], check=False, timeout=3600)
        return str(proc.stdout) + str(proc.stderr)

    cmdPrint = cmd  # noqa: N815 - Mininet's name (it also prints; the prompt shows output anyway)

    def IP(self, intf: Optional[str] = None) -> Optional[str]:  # noqa: N802
        return self._node().ip if self.net.started else self.params.get("ip", "").split("/")[0] or None

    def MAC(self, intf: Optional[str] = None) -> Optional[str]:  # noqa: N802
        return next((r.mac for r in self.net.network().radios if r.node == self.name), None)

    def intfNames(self) -> List[str]:  # noqa: N802
        return [f"{self.name}-{i}" for i in self._node().intfs]

    def _intf(self, intf: Optional[str]) -> str:
        """A Mininet interface name (``sta1-wlan0``) -> the name inside the namespace."""
        node = self._node()
        if intf is None:
            if not node.intfs:
                raise HarnessError(f"{self.name} has no interface")
            return str(node.intfs[0])
        inner = intf[len(self.name) + 1:] if intf.startswith(f"{self.name}-") else intf
        if inner not in node.intfs:
            raise HarnessError(f"{self.name}: no interface {intf!r}; interfaces: "
                               + ", ".join(self.intfNames()))
        return inner

    def setIP(self, ip: str, prefixLen: int = 8, intf: Optional[str] = None) -> str:  # noqa: N802,N803
        """Replace the interface's IPv4 address (``'10.0.0.5/8'``, or a prefix length)."""
        address = ip if "/" in ip else f"{ip}/{prefixLen}"
        dev = self._intf(intf)
        node = self._node()
        node.script([f"ip -4 addr flush dev {dev}", f"ip addr add {address} dev {dev}"])
        node.ips[:] = [address] + [a for a in node.ips[1:]]
        return address

    def setIP6(self, ip: str, prefixLen: int = 64, intf: Optional[str] = None) -> str:  # noqa: N802,N803
        """Add an IPv6 address to the interface."""
        address = ip if "/" in ip else f"{ip}/{prefixLen}"
        self._node().cmd(["ip", "-6", "addr", "add", address, "dev", self._intf(intf), "nodad"])
        self.ip6.append(address)
        return address

    def start(self, controllers: Sequence[Any] = ()) -> None:
        """Mininet-WiFi starts switches and access points after ``build()``; here ``build()``
        has started them already (standalone: no controller needed)."""

    def stop(self) -> None:
        """Part of Mininet's API; the network stops its nodes itself (``net.stop()``)."""


class Station(Node):
    """A station: ad hoc (``cls=adhoc``), mesh point (``cls=mesh``) or a client of an access
    point (``addLink(sta, ap)``)."""

    kind = "station"

    @property
    def position(self) -> List[float]:
        return list(self.net.position_of(self.name))

    def setPosition(self, pos: Union[str, Sequence[float]]) -> None:  # noqa: N802
        """Move the station: its radio takes the new position in the medium at once."""
        x, y, z = parse_position(pos, self.name)
        self.net.move(self.name, x, y, z)

    def setRange(self, *args: Any, **kw: Any) -> None:  # noqa: N802
        raise HarnessError(f"{self.name}.setRange: the range is the medium's (one for all radios "
                           "here: give range= to addStation before build)")

    def setTxPower(self, dbm: float, intf: Optional[str] = None) -> None:  # noqa: N802
        """Change the transmit power in the medium at once (dBm)."""
        self.net.set_txpower(self.name, float(dbm))


class AP(Node):
    """An access point (hostapd on a radio, its wired side a switch)."""

    kind = "access_point"

    @property
    def position(self) -> List[float]:
        return list(self.net.position_of(self.name))


class OVSKernelAP(AP):
    """Mininet-WiFi's default access point class."""


OVSAP = OVSKernelAP
UserAP = OVSKernelAP


class Car(Station):
    """Vehicles need mobility and SUMO: refused (``addCar``)."""


def refuse_class(cls: Any, what: str, allowed: Sequence[type]) -> None:
    """A node class the harness does not realise: one clear error."""
    if cls is not None and cls not in allowed:
        raise HarnessError(f"{what}: cls={getattr(cls, '__name__', cls)!r} is not supported; "
                           f"allowed {', '.join(c.__name__ for c in allowed)} (or none)")
