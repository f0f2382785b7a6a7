"""Traffic: iperf3 flows, ping and sampling of TCP sockets on a running ``Network``.

``iperf`` parses iperf3's JSON into results (pure), ``flows`` runs iperf3 servers and
clients, ``ping`` measures round trips, ``sampling`` reads the sender's TCP state while a
flow runs.

May import: ``harness.errors``, ``harness.kernel``, ``harness.net``. Not experiments,
analysis or papers.
"""
from harness.traffic.flows import Flow, FlowRun, ping, run_flow, run_iperf

__all__ = ["Flow", "FlowRun", "ping", "run_flow", "run_iperf"]
