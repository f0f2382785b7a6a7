"""The network API: a topology description and the ``Network`` that realises it.

``topo`` describes nodes, links and routes as pure data (no root, no kernel); ``nodes``
holds the node classes (``Station``, ``MeshPoint``, ``Host``: a new kind of node is a new
class), ``links`` the link classes (``WirelessLink``, ``VethLink``), and ``network`` the
``Network`` that creates them and the medium, and removes them.

May import: ``harness.errors``, ``harness.kernel``, ``harness.medium``. Not traffic,
experiments, analysis or papers.
"""
from harness.net.links import LINK_CLASSES, Link, VethLink, WirelessLink
from harness.net.network import Network
from harness.net.nodes import NODE_CLASSES, Host, MeshPoint, NetworkNode, Station, WirelessNode
from harness.net.topo import Topology

__all__ = ["Network", "Topology", "NODE_CLASSES", "NetworkNode", "WirelessNode", "Station",
           "MeshPoint", "Host", "LINK_CLASSES", "Link", "WirelessLink", "VethLink"]
