"""iw's mesh output parsed (harness/kernel/mesh.py), on text captured from the guest's
kernel 6.1 and iw."""
from __future__ import annotations

import subprocess
from typing import List

import pytest

from harness.errors import HarnessError
from harness.kernel.mesh import (
    MPATH_ACTIVE,
    establish_peer_links,
    expected_throughput_kbps,
    parse_mpath_dump,
    parse_station_dump,
)
from policies.frame_travel import kernel_airtime_metric

MPATH = """DEST ADDR         NEXT HOP          IFACE\tSN\tMETRIC\tQLEN\tEXPTIME\tDTIM\tDRET\tFLAGS\tHOP_COUNT\tPATH_CHANGE
02:68:78:00:00:00 02:68:78:00:00:00 wlan0\t6\t425\t0\t3664\t0\t0\t0x15\t1\t1
02:68:78:00:02:00 02:68:78:00:02:00 wlan0\t2\t463\t0\t3668\t0\t0\t0x11\t1\t1
02:68:78:00:03:00 02:68:78:00:02:00 wlan0\t7\t892\t0\t3668\t0\t0\t0x15\t2\t1
"""

STATIONS = """Station 02:68:78:00:02:00 (on wlan0)
\tinactive time:\t20 ms
\ttx packets:\t4482
\ttx retries:\t653
\ttx failed:\t2
\tsignal:  \t-52 dBm
\ttx bitrate:\t54.0 MBit/s
\texpected throughput:\t19.133Mbps
\tmesh plink:\tESTAB
\tmesh airtime link metric: 418
Station 02:68:78:00:03:00 (on wlan0)
\ttx packets:\t0
\ttx retries:\t0
\ttx failed:\t0
\tsignal:  \t-65 dBm
\ttx bitrate:\t1.0 MBit/s
\tmesh plink:\tBLOCKED
\tmesh airtime link metric: -1
"""


def test_mpath_dump_rows_by_header():
    paths = parse_mpath_dump(MPATH)
    assert [(p.destination[-5:], p.next_hop[-5:], p.metric, p.hops) for p in paths] == [
        ("00:00", "00:00", 425, 1), ("02:00", "02:00", 463, 1), ("03:00", "02:00", 892, 2)]
    assert all(p.active for p in paths) and paths[0].flags == 0x15 and paths[2].sn == 7
    assert parse_mpath_dump("") == [] and parse_mpath_dump("command failed: No such file") == []
    assert MPATH_ACTIVE == 1


def test_station_dump_peers_metric_and_expected_throughput():
    peers = parse_station_dump(STATIONS)
    est = peers["02:68:78:00:02:00"]
    assert (est.plink, est.airtime_metric, est.tx_bitrate_mbps) == ("ESTAB", 418, 54.0)
    assert (est.tx_packets, est.tx_retries, est.tx_failed, est.signal_dbm) == (4482, 653, 2, -52)
    assert est.expected_throughput_kbps == round(19133 * 1.024)
    blocked = peers["02:68:78:00:03:00"]
    assert blocked.plink == "BLOCKED" and blocked.airtime_metric is None
    assert blocked.expected_throughput_kbps is None


def test_iw_prints_expected_throughput_scaled_and_unpadded():
    assert expected_throughput_kbps("18.859Mbps") == round(18859 * 1.024)
    assert expected_throughput_kbps("18.59Mbps") == round(18059 * 1.024)   # "%u.%u"
    assert expected_throughput_kbps("n/a") is None


def test_the_kernels_metric_is_its_formula_on_the_unscaled_throughput():
    """Measured in the guest (3-hop mesh, 54 Mbit/s, after a TCP flow): iw showed these pairs
    of expected throughput and metric; the formula on iw's printed number would give 427,
    434 and 432 instead."""
    for printed, metric in (("19.133Mbps", 418), ("18.859Mbps", 423), ("18.951Mbps", 421)):
        assert kernel_airtime_metric(expected_throughput_kbps(printed)) == metric


# -- a congestion module the kernel lacks ----------------------------------------------------
def test_a_module_the_kernel_lacks_is_refused_naming_the_key_and_what_it_has(tmp_path,
                                                                             monkeypatch):
    import pytest

    from harness.errors import HarnessError
    from harness.kernel import tcp
    from harness.kernel.tcp import loadable, require_modules
    monkeypatch.setattr(tcp, "available", lambda: ["reno", "cubic"])   # not this host's list
    (tmp_path / "modules.dep").write_text(
        "kernel/net/ipv4/tcp_vegas.ko: \nkernel/net/ipv4/tcp_veno.ko.xz: kernel/net/ipv4/tcp_vegas.ko\n")
    offered = loadable(tmp_path)
    assert offered is not None and {"reno", "cubic", "vegas", "veno"} <= set(offered)
    assert "illinois" not in offered
    require_modules({"flows[0].congestion": "veno"}, offered)
    with pytest.raises(HarnessError, match=r"flows\[1\].congestion 'illinois': this kernel .* "
                                           r"has no tcp_illinois module: allowed here .*vegas"):
        require_modules({"flows[0].congestion": "veno", "flows[1].congestion": "illinois"},
                        offered)
    assert loadable(tmp_path / "missing") is None      # unreadable lists refuse nothing


# -- netlink port ids inside node namespaces -------------------------------------------------
def test_explicit_port_ids_never_take_the_process_id_or_the_autobind_range():
    from harness.kernel.netns import portid_candidates
    for pid in (1, 4242, (1 << 22) - 1, 1 << 22):
        ids = portid_candidates(pid)
        assert pid not in ids and len(set(ids)) == len(ids) == 64
        assert all((1 << 22) < i < 0x80000000 for i in ids)   # above pid_max, below -4096


class ScriptedPeers:
    """A node whose ``station dump`` answers come from a list (the last one repeats), and which
    records the shell lines it was asked to run: the re-open logic alone, no kernel."""

    name = "sta3"

    def __init__(self, *dumps: str):
        self.dumps = list(dumps)
        self.lines: List[str] = []

    def cmd(self, argv, check=True, **_):
        dump = self.dumps.pop(0) if len(self.dumps) > 1 else self.dumps[0]
        return subprocess.CompletedProcess(argv, 0, dump, "")

    def script(self, lines, check=True, **_):
        self.lines += list(lines)


def peer(state: str) -> str:
    return f"Station 02:68:78:00:03:00 (on wlan0)\n\tmesh plink:\t{state}\n"


def test_a_peer_link_back_in_listen_is_opened_again_until_established():
    node = ScriptedPeers(peer("OPN_SNT"), peer("LISTEN"), peer("OPN_SNT"), peer("ESTAB"))
    assert establish_peer_links(node, "wlan0", ["02:68:78:00:03:00"], poll=0) == {
        "02:68:78:00:03:00": 1}
    assert node.lines == ["iw dev wlan0 station set 02:68:78:00:03:00 plink_action open"]


def test_a_peer_link_never_established_is_an_error_naming_it_and_its_state():
    node = ScriptedPeers(peer("HOLDING"))
    with pytest.raises(HarnessError, match=r"\[sta3\] mesh peer links not established within "
                                           r"0 s: 02:68:78:00:03:00 \(HOLDING\)"):
        establish_peer_links(node, "wlan0", ["02:68:78:00:03:00"], timeout=0, poll=0)
    assert node.lines == []
