"""Link classes: how each kind of link of a topology is realised.

``Network`` makes one object per ``LinkSpec`` (in the order the topology added them), choosing
the class by the link's kind in ``LINK_CLASSES`` (``Network(link_classes=...)`` replaces one),
and calls ``create(net)`` after the nodes' ``setup`` and before the medium starts. A new kind
of link (a switch port, a shaped veth) is a new class here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Dict, Optional, Type

from harness.kernel import cpu_layout, naming, shaping
from harness.kernel.netns import run
from harness.net.topo import LinkSpec

if TYPE_CHECKING:
    from harness.net.network import Network


class Link:
    """One link of the topology, realised between two nodes of a running network."""

    kind: ClassVar[str] = "link"

    def __init__(self, spec: LinkSpec):
        self.spec = spec

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec.a}-{self.spec.b}>"

    def create(self, net: Network) -> None:
        """Make the link (the nodes' namespaces and radios exist; the medium does not yet)."""


class WirelessLink(Link):
    """Two stations declared neighbours: nothing to create. Its ends read the declaration when
    they join (``harness.net.nodes``): a mesh point opens peer links only to its declared
    neighbours, and an IBSS station without a medium filters frames to them."""

    kind = "wireless"


class AssociationLink(Link):
    """A managed station linked to an access point: nothing to create. The station reads the
    declaration when it associates (``harness.net.wifi.ManagedStation``)."""

    kind = "association"


class VethLink(Link):
    """A veth pair made directly inside the two namespaces (the root namespace never sees it),
    named ``eth<k>`` in each node (k = its veths so far); each end is handed to its node
    (``attach_lines``: addressed and up, or a port of a bridge). With ``bw`` (Mbit/s) both
    ends' egress is shaped to it (``harness.kernel.shaping``: netem rate, ``queue`` packets).

    Each end's receive work is steered (RPS, ``cpu_layout.rps_lines``): a veth hands a packet
    to the backlog of the CPU that sent it, and netem releases packets from its timer on
    whichever CPU that fires, so without steering one flow's packets are received out of
    order across CPUs (measured in the 2-vCPU guest: 530 fast retransmits in 8 s at 100
    Mbit/s with no packet dropped anywhere)."""

    kind = "veth"

    def __init__(self, spec: LinkSpec):
        super().__init__(spec)
        self.intf_a: Optional[str] = None
        self.intf_b: Optional[str] = None

    def create(self, net: Network) -> None:
        spec = self.spec
        a, b = net.nodes[spec.a], net.nodes[spec.b]
        ia, ib = naming.eth_name(a.intfs), naming.eth_name(b.intfs)
        run(["ip", "link", "add", ia, "netns", a.netns, "type", "veth",
             "peer", "name", ib, "netns", b.netns])
        a.intfs.append(ia)
        b.intfs.append(ib)
        self.intf_a, self.intf_b = ia, ib
        bw = spec.params.get("bw")
        for node, intf, ip in ((a, ia, spec.ip_a), (b, ib, spec.ip_b)):
            lines = node.attach_lines(intf, ip) + cpu_layout.rps_lines(intf)
            if bw is not None:
                lines += shaping.shape_lines(intf, bw, spec.params.get("queue",
                                                                       shaping.DEFAULT_QUEUE))
            node.script(lines)
            if ip is not None:  # a switch's or access point's port has none
                node.ips.append(ip)


#: The class of each kind of link (``Network(link_classes=...)`` overrides entries).
LINK_CLASSES: Dict[str, Type[Link]] = {
    WirelessLink.kind: WirelessLink,
    AssociationLink.kind: AssociationLink,
    VethLink.kind: VethLink,
}
