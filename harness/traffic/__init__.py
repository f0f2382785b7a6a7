"""Traffic: iperf3 flows, ping and sampling of TCP sockets on a running ``Network``.

``iperf`` parses iperf3's JSON into results (pure), ``servers`` starts and stops the iperf3
server of a flow, ``flows`` runs flows (one, or several started together), measures round
trips with ping and reads the sender's TCP state while a flow runs; ``queues`` samples where
packets wait (wireless interfaces' qdiscs, the medium's queues) while flows run.

May import: ``harness.errors``, ``harness.kernel``, ``harness.net``. Not experiments,
analysis or papers.
"""
from harness.traffic.flows import Flow, FlowRun, ping, run_flow, run_iperf

__all__ = ["Flow", "FlowRun", "ping", "run_flow", "run_iperf"]
