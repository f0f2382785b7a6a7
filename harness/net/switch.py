"""``Switch``: an Open vSwitch bridge in standalone mode, in a namespace of its own.

The node's namespace holds the bridge and its own ``ovsdb-server`` and ``ovs-vswitchd``
(``harness.kernel.ovs``: started in ``setup``, before any link exists; their files in a run
directory of their own). Every veth link to the switch ends in a port of the bridge
(``attach_lines``), with no address. The daemons are processes of the node, so
``Network.stop`` stops them with the others (also on Ctrl-C); then the run directory goes,
and deleting the namespace deletes the kernel datapath.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional

from harness.kernel import naming, ovs
from harness.net.nodes import NetworkNode, register_node_class
from harness.net.topo import SwitchSpec

if TYPE_CHECKING:
    from harness.net.network import Network


@register_node_class
class Switch(NetworkNode):
    """A learning switch: one OVS bridge, every wired link a port."""

    kind = "switch"

    def __init__(self, name: str, netns_name: str, run_tag: str, spec: SwitchSpec):
        super().__init__(name, netns_name, run_tag, spec)
        self.ovs = ovs.OvsSwitch(self, run_tag, naming.ovs_bridge_name(run_tag, "br"))

    @property
    def bridge(self) -> str:
        return self.ovs.bridge

    def setup(self, net: Network) -> None:
        self.ovs.start()

    def attach_lines(self, intf: str, ip: Optional[str]) -> List[str]:
        return self.ovs.add_port_lines(intf)

    def stop(self, net: Network) -> None:
        """The daemons were stopped with the node's processes: their files go."""
        self.ovs.remove_files()
