"""Per-flow congestion control reaches the kernel: westwood visible in ss -ti while it runs."""
from __future__ import annotations

import pytest

from harness.kernel import tcp
from harness.traffic.flows import Flow, run_flow

pytestmark = pytest.mark.emulation


def test_westwood_flow_seen_in_ss(make_network, pair):
    net = make_network(pair())
    before = tcp.allowed()
    run = run_flow(net, Flow("sta1", "sta2", duration=4, congestion="westwood",
                                    bitrate="20M"),
                   sample_ss=True, ss_interval=0.2)
    assert run.result.congestion == "westwood"
    assert run.ss, "no ss samples of the data socket"
    names = {s.congestion for s in run.ss}
    sockets = sorted({(s.local, s.peer, s.congestion) for s in run.ss})
    assert names == {"westwood"}, f"{names}: sockets {sockets}; incomplete: {run.incomplete}"
    assert all(s.cwnd for s in run.ss)
    assert "westwood" in tcp.allowed()
    net.stop()
    assert tcp.allowed() == before or "westwood" in before


def test_per_namespace_default(make_network, pair):
    net = make_network(pair())
    net.set_congestion("sta1", "vegas")
    assert net["sta1"].get_sysctl("net.ipv4.tcp_congestion_control") == "vegas"
    assert net["sta2"].get_sysctl("net.ipv4.tcp_congestion_control") != "vegas"
