"""Picking the data connection's ss samples out of iperf3's two sockets."""
from pathlib import Path

import pytest

from harness.traffic.flows import SsSample, client_data_port, flow_samples

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


def test_without_a_port_the_connection_that_moved_most_is_used_throughout():
    # at t=0 the control connection (cubic) leads; by the end the data connection moved more:
    # every sample is the data connection's, none of the control's
    samples = [sample(0.0, "a:1", "b:5201", "cubic", 300), sample(0.0, "a:2", "b:5201", "reno", 10),
               sample(0.2, "a:1", "b:5201", "cubic", 300), sample(0.2, "a:2", "b:5201", "reno", 9000)]
    got = flow_samples(samples, None)
    assert [(s.t, s.congestion) for s in got] == [(0.0, "reno"), (0.2, "reno")]


def test_result_from_samples_is_goodput_over_the_test_duration():
    """A client killed after its data phase: the bytes the sender saw acknowledged over the
    test's duration, with the retransmission count and module of the sample that had the
    most bytes acknowledged."""
    from harness.traffic.flows import Flow, SsSample, result_from_samples
    flow = Flow("sta1", "sta8", duration=30.0)
    samples = [SsSample(t=t, local="10.0.0.1:40000", peer="10.0.0.8:5201", congestion="reno",
                        cwnd=4, rtt_ms=900.0, rttvar_ms=100.0, unacked=2 if t < 31 else 0,
                        bytes_acked=min(t, 30) * 50_000, retrans_total=int(t // 10), mss=1448)
               for t in range(0, 40)]
    result = result_from_samples(flow, samples)
    assert result.bytes == 1_500_000
    assert result.throughput_bps == pytest.approx(1_500_000 * 8 / 30)
    assert (result.protocol, result.src, result.dst, result.congestion) == ("TCP", "sta1", "sta8", "reno")
    assert result.retransmits == 3
    assert result.intervals == []
    with pytest.raises(ValueError, match="no samples"):
        result_from_samples(flow, [])


def test_result_from_samples_leaves_out_what_the_socket_buffer_delivered_after_the_test():
    """iperf3 stops writing at the duration; what it had written keeps arriving while the
    report hangs, and must not count (the window starts at the first acknowledged byte)."""
    from harness.traffic.flows import Flow, SsSample, result_from_samples
    flow = Flow("sta1", "sta8", duration=30.0)

    def at(t, acked):
        return SsSample(t=t, local="10.0.0.1:40000", peer="10.0.0.8:5201", congestion="reno",
                        cwnd=4, rtt_ms=900.0, rttvar_ms=100.0, unacked=2, bytes_acked=acked,
                        retrans_total=0, mss=1448)
    # connected at 2.0 s (before that nothing acknowledged), 10 kB/s, then 200 kB more by 90 s
    samples = [at(0.5 * i, 0) for i in range(4)]
    samples += [at(2.0 + 0.5 * i, 37 + 5_000 * i) for i in range(61)]    # up to t = 32.0
    samples += [at(32.0 + 2 * i, 300_037 + 10_000 * i) for i in range(1, 30)]
    result = result_from_samples(flow, samples)
    assert result.bytes == 300_037
    assert result.throughput_bps == pytest.approx(300_037 * 8 / 30)
