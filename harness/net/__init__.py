"""The network API: a topology description and the ``Network`` that realises it.

``topo`` describes nodes, links and routes as pure data (no root, no kernel); ``nodes``
holds the node classes (a station, a wired host; a new kind of node is a new class) and
``network`` the ``Network`` that creates them, their links and the medium, and removes them.

May import: ``harness.errors``, ``harness.kernel``, ``harness.medium``. Not traffic,
experiments, analysis or papers.
"""
from harness.net.network import Network
from harness.net.topo import Topology

__all__ = ["Network", "Topology"]
