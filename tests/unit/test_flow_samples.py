"""Picking the data connection's ss samples out of iperf3's two sockets."""
from pathlib import Path

from harness.traffic import SsSample, client_data_port, flow_samples

DATA = Path(__file__).parent / "data" / "iperf"


def sample(t, local, peer, cc, acked):
    return SsSample(t=t, local=local, peer=peer, congestion=cc, cwnd=10, rtt_ms=1.0,
                    rttvar_ms=0.5, unacked=0, bytes_acked=acked, retrans_total=0, mss=1448)


def test_port_from_real_iperf3_json():
    port = client_data_port((DATA / "tcp_reno.json").read_text())
    assert isinstance(port, int) and port > 1024
    assert client_data_port((DATA / "error_refused.json").read_text()) is None
    assert client_data_port("not json") is None


def test_control_connection_never_taken_for_the_flow():
    # at t=0 the control connection (cubic) has moved more bytes than the data one
    samples = [sample(0.0, "10.0.0.1:40000", "10.0.0.2:5201", "cubic", 300),
               sample(0.0, "10.0.0.1:40002", "10.0.0.2:5201", "westwood", 100),
               sample(0.2, "10.0.0.1:40000", "10.0.0.2:5201", "cubic", 300),
               sample(0.2, "10.0.0.1:40002", "10.0.0.2:5201", "westwood", 90000)]
    got = flow_samples(samples, 40002)
    assert [s.congestion for s in got] == ["westwood", "westwood"]


def test_reverse_flow_matches_the_peer_port():
    # -R: the sender is the server (local port 5201); the client's data port is the peer's
    samples = [sample(0.0, "10.0.0.2:5201", "10.0.0.1:40000", "cubic", 300),
               sample(0.0, "10.0.0.2:5201", "10.0.0.1:40002", "vegas", 100)]
    assert [s.congestion for s in flow_samples(samples, 40002)] == ["vegas"]


def test_without_a_port_the_busiest_socket_per_time_is_used():
    samples = [sample(0.0, "a:1", "b:5201", "cubic", 300), sample(0.0, "a:2", "b:5201", "reno", 10)]
    assert [s.congestion for s in flow_samples(samples, None)] == ["cubic"]
