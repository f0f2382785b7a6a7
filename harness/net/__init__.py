"""The network API: a topology description and the ``Network`` that realises it.

``topo`` describes nodes, links, routes and walls as pure data (no root, no kernel);
``nodes`` holds the node classes (``Station``, ``MeshPoint``, ``Host``: a new kind of node
is a new class), ``switch`` the Open vSwitch ``Switch``, ``wifi`` the ``AccessPoint`` and
the ``ManagedStation``, ``links`` the link classes (``WirelessLink``, ``AssociationLink``,
``VethLink``), ``coverage`` which access point serves a station, and ``network`` the
``Network`` that creates them and the medium, and removes them.

May import: ``harness.errors``, ``harness.kernel``, ``harness.medium``. Not traffic,
experiments, analysis or papers.
"""
from harness.net.links import LINK_CLASSES, AssociationLink, Link, VethLink, WirelessLink
from harness.net.network import Network, check_topology
from harness.net.nodes import NODE_CLASSES, Host, MeshPoint, NetworkNode, Station, WirelessNode
from harness.net.switch import Switch
from harness.net.topo import Topology
from harness.net.wifi import AccessPoint, ManagedStation

__all__ = ["Network", "Topology", "check_topology", "NODE_CLASSES", "NetworkNode",
           "WirelessNode", "Station", "MeshPoint", "Host", "Switch", "AccessPoint",
           "ManagedStation", "LINK_CLASSES", "Link", "WirelessLink", "AssociationLink",
           "VethLink"]
