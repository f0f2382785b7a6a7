"""The picture's data (harness.net.scene, harness.experiment.run_scene) and the picture itself
(harness.analysis.topology_figure), from descriptions only: no root, no kernel."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from harness.analysis.topology_figure import draw_scene
from harness.errors import HarnessError
from harness.experiment.run_scene import scene_of_params, scene_of_record
from harness.interactive import sources
from harness.net import scene as scenes
from harness.net.topo import Topology
from topologies import chain


def test_chain_scene_has_positions_ranges_declared_links_and_static_paths():
    topo = chain.build(hops=3, spacing=200)
    scene = scenes.scene_of(topo, {"tx_range": 250, "cs_range": 550})
    assert [(n.name, n.x, n.tx_range, n.cs_range) for n in scene.nodes] == [
        ("sta1", 0.0, 250, 550), ("sta2", 200.0, 250, 550), ("sta3", 400.0, 250, 550),
        ("sta4", 600.0, 250, 550)]
    assert [(l.a, l.b, l.kind) for l in scene.links] == [
        ("sta1", "sta2", "wireless"), ("sta2", "sta3", "wireless"), ("sta3", "sta4", "wireless")]
    assert scenes.static_path(topo, "sta1", "sta4") == ["sta1", "sta2", "sta3", "sta4"]
    assert scenes.static_path(topo, "sta4", "sta2") == ["sta4", "sta3", "sta2"]
    assert scenes.static_path(chain.build(hops=2, mode="mesh"), "sta1", "sta3") is None


def test_without_declared_links_pairs_in_range_are_links_and_follow_a_move():
    topo = Topology("free")
    for name, pos in (("a", (0, 0)), ("b", (100, 0)), ("c", (300, 0))):
        topo.add_station(name, pos)
    scene = scenes.scene_of(topo, {"tx_range": 150})
    assert [(l.a, l.b) for l in scene.links] == [("a", "b")]
    assert scene.node("a").cs_range == 150  # no cs_range: carrier sense reaches as far as tx
    moved = scenes.with_position(scene, "c", 200, 0)
    assert [(l.a, l.b) for l in moved.links] == [("a", "b"), ("b", "c")]
    assert scenes.scene_of(topo, "none").node("a").tx_range is None  # no medium: no ranges


def test_counters_give_delivery_per_direction_and_add_links_that_carried_frames():
    topo = chain.build(hops=1, spacing=200)
    stats = {"links": [
        {"tx_node": "sta1", "rx_node": "sta2", "attempts": 200, "successes": 150},
        {"tx_node": "sta2", "rx_node": "sta1", "attempts": 10, "successes": 10},
        {"tx_node": "sta2", "rx_node": "ghost", "attempts": 5, "successes": 0},
        {"tx_node": "sta1", "rx_node": "sta2", "attempts": 0, "successes": 0, "tx": "x"}]}
    scene = scenes.with_counters(scenes.scene_of(topo, {"tx_range": 250}), stats)
    (link,) = scene.links
    assert link.delivery == {"sta1>sta2": 0.75, "sta2>sta1": 1.0}
    assert link.worst_delivery == 0.75 and link.attempts["sta1>sta2"] == 200
    assert scenes.Scene.from_dict(scene.to_dict()) == scene


def test_wired_nodes_without_position_are_placed_beside_what_they_link_to():
    topo = Topology("mixed")
    topo.add_station("sta1", (0, 0))
    topo.add_station("sta2", (100, 0))
    topo.add_link("sta1", "sta2")
    topo.add_host("h1")
    topo.add_link("sta2", "h1")
    scene = scenes.scene_of(topo, None)
    h1 = scene.node("h1")
    assert h1.placed and h1.x == 100.0 and h1.y < 0 and h1.tx_range is None
    assert not scene.node("sta1").placed


def test_walls_come_from_the_medium_and_ranges_are_flagged_as_open_space():
    topo = Topology("room")
    topo.add_station("a", (0, 0))
    topo.add_station("b", (40, 0))
    scene = scenes.scene_of(topo, {"propagation": "indoor", "tx_range": 60,
                                   "walls": [[20, -10, 20, 10, 6]]})
    assert scene.walls == [(20.0, -10.0, 20.0, 10.0)]
    assert "wall" in scene.note


def test_a_run_scene_has_the_flows_paths_and_a_record_its_delivery(tmp_path):
    setup = sources.from_builder("chain", ["hops=2", "medium.cs_range=550"])
    scene = scene_of_params(setup.params)
    assert scene.routes == [["sta1", "sta2", "sta3"]]
    record = {"experiment": "x", "run_id": "abc", "point": {"topology.hops": 2},
              "params": setup.params,
              "medium": {"counters": {"links": [{"tx_node": "sta2", "rx_node": "sta3",
                                                  "attempts": 4, "successes": 1}]}}}
    from_record = scene_of_record(record)
    assert from_record.name == "x abc (hops=2)"
    assert [l.delivery for l in from_record.links] == [{}, {"sta2>sta3": 0.25}]


def test_picture_is_written_as_png_and_svg(tmp_path):
    setup = sources.from_builder("chain", ["hops=3"])
    scene = scenes.with_counters(scene_of_params(setup.params), {"links": [
        {"tx_node": "sta1", "rx_node": "sta2", "attempts": 10, "successes": 9}]})
    written = draw_scene(scene.to_dict(), tmp_path / "pic.png")
    assert [p.name for p in written] == ["pic.png", "pic.svg"]
    assert written[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = ET.parse(written[1]).getroot()
    text = " ".join(t for t in svg.itertext())
    for label in ("sta1", "sta4", "90%", "route sta1", "carrier-sense range", "delivery ratio"):
        assert label in text, label


def test_picture_refuses_unknown_nodes_and_formats(tmp_path):
    scene = scene_of_params(sources.from_builder("chain", ["hops=1"]).params).to_dict()
    with pytest.raises(HarnessError, match="ranges of sta9: no such node; nodes: sta1, sta2"):
        draw_scene(scene, tmp_path / "x.png", ranges_of=["sta9"])
    with pytest.raises(HarnessError, match="format 'jpg'"):
        draw_scene(scene, tmp_path / "x.png", formats=["jpg"])
    with pytest.raises(HarnessError, match="no nodes"):
        draw_scene({"name": "empty", "nodes": []}, tmp_path / "x.png")


def test_paths_on_a_lan_cross_its_switch_and_access_point():
    from topologies import lan
    hybrid = lan.build(wireless=True)
    assert scenes.static_path(hybrid, "server", "client") == ["server", "sw1", "ap1", "client"]
    assert scenes.static_path(hybrid, "client", "server") == ["client", "ap1", "sw1", "server"]
    assert scenes.static_path(lan.build(wireless=False), "server", "client") == \
        ["server", "sw1", "client"]
    # an IP hop with no way through a bridge stays as it is (stations in range, no links)
    assert scenes.through_bridges(chain.build(hops=2), ["sta1", "sta3"]) == ["sta1", "sta3"]


def test_a_line_of_nodes_without_drawn_ranges_is_not_drawn_as_a_sliver():
    """Lab 5's mesh points: 150 m on a line, ranges far beyond the picture (not drawn)."""
    from harness.analysis.topology_figure import MAX_ASPECT, _bounds
    nodes = [{"x": 50.0 * i, "y": 0.0, "tx_range": 10000.0, "cs_range": 10000.0}
             for i in range(4)]
    x0, x1, y0, y1 = _bounds(nodes, [], show_cs=True)
    assert x0 < 0 and x1 > 150 and y0 < 0 < y1
    assert 2.0 < (x1 - x0) / (y1 - y0) <= MAX_ASPECT
    tall = [{"x": 0.0, "y": 40.0 * i} for i in range(5)]  # a vertical line too
    x0, x1, y0, y1 = _bounds(tall, [], show_cs=False)
    assert 2.0 < (y1 - y0) / (x1 - x0) <= MAX_ASPECT
    near_square = [{"x": 0.0, "y": 0.0, "tx_range": 100.0}, {"x": 50.0, "y": 0.0, "tx_range": 100.0}]
    assert _bounds(near_square, [], show_cs=False) == pytest.approx((-115.0, 165.0, -115.0, 115.0))
