"""Paper 002's network, without a kernel: the mesh_chain builder, the path check's and the
Eq. 5 policy's pure parts, and the mesh-specific bad input of experiment files."""
from __future__ import annotations

import textwrap

import pytest

from harness.errors import HarnessError
from harness.experiment import schema
from harness.kernel.mesh import MeshPath, Peer
from policies import frame_travel as ft
from policies.airtime_retry import AirtimeRetry, limit_for_paths
from policies.mesh_path import MeshPathCheck, expected_path, path_problems, peer_problems, stray_attempts
from topologies import BUILDERS
from topologies.mesh_chain import build


def test_chain_of_mesh_points_one_metre_apart_peering_only_along_it():
    topo = build(hops=5)
    assert topo.node_names() == [f"sta{i}" for i in range(1, 7)]
    assert all(topo.node_kind(n) == "mesh_point" for n in topo.node_names())
    assert [s.position[0] for s in topo.stations.values()] == [0, 1, 2, 3, 4, 5]
    assert topo.wireless_neighbours("sta3") == ["sta2", "sta4"]
    assert all(s.rate is None and s.rts is False and s.phy == "g" for s in topo.stations.values())
    assert not topo.routes                     # HWMP routes, not IP
    assert "mesh_chain" in BUILDERS


def test_bystanders_peer_with_nobody_and_first_last_stay_the_path_ends():
    topo = build(hops=3, nodes=6)
    names = topo.node_names()
    assert names[0] == "sta1" and names[-1] == "sta4" and {"idle1", "idle2"} <= set(names)
    assert topo.wireless_neighbours("idle1") == []
    assert expected_path(topo, "sta1", "sta4") == ["sta1", "sta2", "sta3", "sta4"]


@pytest.mark.parametrize("kw, message", [
    ({"hops": 5, "nodes": 4}, r"topology.hops 5 needs 6 mesh points but topology.nodes is 4: a "
                              r"path cannot be longer than the nodes; allowed hops 1..3"),
    ({"hops": 0}, r"topology.hops: 0 is out of range; expected an integer in \[1, 15\]"),
    ({"hops": 3, "nodes": 17}, r"topology.nodes: 17 is out of range; expected an integer in "
                               r"\[2, 16\], or null \(hops \+ 1\)"),
    ({"hops": 3, "spacing": 0}, r"topology.spacing: 0.0 is out of range; expected a number >= 0.1"),
    ({"hops": 3, "spacing": None}, r"topology.spacing: null is not allowed"),
])
def test_bad_geometry_names_the_key_and_the_allowed_values(kw, message):
    with pytest.raises(HarnessError, match=message):
        build(**kw)


def exp(text: str):
    return schema.loads(textwrap.dedent(text))


BASE = """\
    name: x
    topology: {builder: mesh_chain, hops: 3}
    flows: [{src: first, dst: last}]
"""


@pytest.mark.parametrize("policy, message", [
    ("{mac: {retry_limit: 0}}", r"policy.mac.retry_limit: 0 is out of range; expected an "
                                r"integer in \[1, 31\]"),
    ("{mac: {retry_limit: 32}}", r"policy.mac.retry_limit: 32 is out of range"),
    ("{congestion: hybla}", r"policy.congestion: hybla .* expected one of reno, cubic"),
    ("{airtime_retry: normal, mac: {retry_limit: 7}}",
     r"policy.mac.retry_limit: 7 fixes the retry limit, and policy.airtime_retry chooses it"),
    ("{airtime_retry: typical}", r"policy.airtime_retry: typical .* expected one of best, "
                                 r"worst, normal"),
])
def test_mesh_specific_bad_input_is_one_clear_error(policy, message):
    from harness.experiment.sweep import expand
    with pytest.raises(HarnessError, match=message):
        expand(exp(BASE + f"    policy: {policy}\n"))


# -- the path check -------------------------------------------------------------------------
MAC = {f"sta{i}": f"02:00:00:00:0{i}:00" for i in range(1, 5)}


def table(rows):
    return {node: [MeshPath(MAC[d], MAC[nh], m, h) for d, nh, m, h in entries]
            for node, entries in rows.items()}


def test_path_problems_accept_the_chain_and_name_a_shortcut():
    path = ["sta1", "sta2", "sta3", "sta4"]
    good = table({"sta1": [("sta4", "sta2", 900, 3)], "sta2": [("sta4", "sta3", 600, 2)],
                  "sta3": [("sta4", "sta4", 300, 1)]})
    assert path_problems(path, good, MAC) == ([], [])
    bad = table({"sta1": [("sta4", "sta3", 600, 2)], "sta2": [("sta4", "sta3", 600, 2)],
                 "sta3": []})
    problems, _ = path_problems(path, bad, MAC)
    assert any("sta1 reaches sta4 via" in p and "in 2 hops" in p for p in problems)
    assert "sta3 has no path to sta4" in problems
    flapped = {n: [MeshPath(p.destination, p.next_hop, p.metric, p.hops, flags=0x14) for p in v]
               for n, v in good.items()}
    problems, notes = path_problems(path, flapped, MAC)
    assert problems == [] and len(notes) == 3 and "inactive (flags 0x14)" in notes[0]


def test_a_hop_count_from_an_intermediate_reply_is_noted_more_hops_contradict():
    """Linux's intermediate reply carries hop count 0: the requester stores 1 for any distance
    (seen in 002's reduced sweep at R = 1: sta6 reached sta1 via sta5 "in 1 hops")."""
    path = ["sta1", "sta2", "sta3", "sta4"]
    replied = table({"sta1": [("sta4", "sta2", 900, 1)], "sta2": [("sta4", "sta3", 600, 2)],
                     "sta3": [("sta4", "sta4", 300, 1)]})
    problems, notes = path_problems(path, replied, MAC)
    assert problems == [] and notes == [
        "sta1's path to sta4 (via sta2) counts 1 hops for the chain's 3 (an intermediate "
        "node's reply)"]
    longer = table({"sta1": [("sta4", "sta2", 900, 4)], "sta2": [("sta4", "sta3", 600, 2)],
                    "sta3": [("sta4", "sta4", 300, 1)]})
    problems, _ = path_problems(path, longer, MAC)
    assert problems == ["sta1 reaches sta4 via 02:00:00:00:02:00 in 4 hops; the chain says via "
                        "sta2 (02:00:00:00:02:00) in 3"]


def test_peer_problems_and_stray_transmissions():
    topo = build(hops=3)
    node_of = {m: n for n, m in MAC.items()}
    peer = lambda mac, state: Peer(mac, state, 300, 19000, 54.0)  # noqa: E731
    peers = {"sta2": {MAC["sta1"]: peer(MAC["sta1"], "ESTAB"), MAC["sta3"]: peer(MAC["sta3"], "ESTAB"),
                      MAC["sta4"]: peer(MAC["sta4"], "BLOCKED")},
             "sta1": {MAC["sta2"]: peer(MAC["sta2"], "ESTAB"), MAC["sta3"]: peer(MAC["sta3"], "ESTAB")}}
    problems = peer_problems(topo, peers, node_of)
    assert problems == ["sta1 has peer links to ['sta2', 'sta3'], declared ['sta2']"]
    before = {("sta1", "sta2"): 10, ("sta1", "sta3"): 1}
    after = {("sta1", "sta2"): 50, ("sta1", "sta3"): 3, ("sta2", "sta4"): 0}
    assert stray_attempts(before, after, topo) == {"sta1>sta3": 2}


def test_path_check_value_must_be_a_bool():
    with pytest.raises(HarnessError, match="mesh_path 'yes' is invalid: allowed true"):
        MeshPathCheck("yes")  # type: ignore[arg-type]


# -- Eq. 5 on one node's table ---------------------------------------------------------------
def test_each_node_takes_its_limit_from_its_own_table():
    link = ft.kernel_airtime_metric(19_000)
    middle = [MeshPath("a", "b", 2 * link, 2), MeshPath("e", "d", 3 * link, 3),
              MeshPath("d", "d", link, 1)]
    got = limit_for_paths(middle, ft.CASES["normal"])
    assert got["diameter_hops"] == 5 and got["diameter_metric"] == 5 * link
    assert got["limit"] == ft.retry_limit_for(5 * link, 5, ft.CASES["normal"])
    end = limit_for_paths([MeshPath("f", "b", 5 * link, 5)], ft.CASES["normal"])
    assert end["limit"] == got["limit"]         # both ends of the diameter agree
    # a path HWMP is refreshing or let expire still belongs to the network's diameter
    inactive = limit_for_paths([MeshPath("f", "b", 5 * link, 5, flags=0)], ft.CASES["normal"])
    assert inactive["limit"] == got["limit"] and inactive["diameter_hops"] == 5
    unusable = [MeshPath("f", "b", 0xFFFFFFFF, 5, flags=0),
                MeshPath("g", "00:00:00:00:00:00", 3 * link, 3, flags=0x2),
                MeshPath("h", "b", 0, 0, flags=0x2)]
    assert limit_for_paths(unusable, ft.CASES["normal"])["limit"] is None   # nothing known
    with pytest.raises(HarnessError, match="airtime_retry 'typical' is invalid: allowed best, "
                                           "worst, normal"):
        AirtimeRetry("typical")
