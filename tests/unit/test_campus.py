"""The campus builder (topologies/campus.py): its routers, radios, routes and bad input.

The paper's statements about its links are study 000's tests (studies/p000_campus/tests/).
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.experiment import schema
from harness.experiment.sweep import expand
from harness.medium.config import config_text
from harness.medium.spec import MediumSpec, medium_with_defaults
from topologies import campus as C


def test_campus_has_32_routers_with_the_17_named_ids_in_4_buildings():
    campus = C.load_campus()
    assert len(campus.routers) == 32 and len(campus.buildings) == 4
    named = {1, 2, 3, 4, 5, 13, 14, 16, 19, 22, 23, 25, 28, 29, 30, 34, 37}
    assert named <= set(campus.routers)
    for rid in campus.routers:
        x, y, z = campus.position(rid)
        b = campus.buildings[campus.routers[rid].building]
        assert b.contains(x, y) and 0 < z < b.floors * campus.floor_height


def test_radios_are_as_on_map():
    topo = C.build()
    assert len(topo.stations) == 32
    for s in topo.stations.values():
        assert (s.phy, s.txpower_dbm, s.antenna_gain_dbi, s.retry_limit, s.mode) == \
            ("b", 18.0, 2.0, 11, "ibss")
        assert s.ip == f"10.0.0.{s.name[1:]}/24"
    assert topo.aliases["23"] == "r23"
    pinned = C.build(routing="pinned", path="5-3-23", rate=5.5, rts=True)
    assert {(s.rate, s.rts) for s in pinned.stations.values()} == {(5.5, True)}


def test_the_medium_gets_the_campus_physics_with_the_layout_seed():
    topo = C.build(shadowing_seed=7)
    spec = MediumSpec.from_dict(medium_with_defaults(topo.medium, {"queue": 20}))
    assert spec.propagation == "indoor" and spec.queue == 20 and spec.shadowing_seed == 7
    assert len(spec.walls) == 4 * 4 + 4     # 4 outlines + 4 fire walls
    rows = C.radio_rows(topo.campus, [1, 23])
    text = config_text(rows, spec, seed=99)
    assert "shadowing 4 seed 7" in text and "gain 2" in text and "floor_loss 14" in text
    assert "wall 0 0 60 0 loss 12" in text


def test_fading_sigma_makes_hops_lossier_at_the_same_mean_power(tmp_path):
    filed = C.build(routing="pinned", path="1-16-29-30", nodes="path")
    faded = C.build(routing="pinned", path="1-16-29-30", nodes="path", fading_sigma=8)
    assert (filed.medium["fading"], filed.medium["fading_sigma"]) == ("lognormal", 2)
    assert (faded.medium["fading"], faded.medium["fading_sigma"]) == ("lognormal", 8.0)
    a = C.campus_links(filed.campus)
    b = C.campus_links(C.with_fading(filed.campus, 8))
    assert b.get("r16", "r29").mean_dbm == pytest.approx(a.get("r16", "r29").mean_dbm)
    assert b.delivery("r16", "r29", 5.5) < a.delivery("r16", "r29", 5.5) - 0.05
    assert C.with_fading(filed.campus, None) is filed.campus
    with pytest.raises(HarnessError, match="fading_sigma"):
        experiment("""
            name: x
            topology: {builder: campus, fading_sigma: 0}
            flows: [{src: 1, dst: 23}]
            """, tmp_path)


def test_fading_coherence_is_allowed_over_a_campus_where_fading_is_not(tmp_path):
    """Slow fading keeps each link's delivery ratio (the routes are computed from it), so a
    campus experiment may set medium.fading_coherence; the run's medium gets the campus's
    fading with the coherence on top. medium.fading itself would change the link table."""
    runs = experiment("""
        name: x
        topology: {builder: campus, routing: pinned, path: 1-16-29-30, nodes: path}
        medium: {fading_coherence: 50}
        flows: [{src: first, dst: last}]
        """, tmp_path)
    from harness.experiment.execute import medium_choice
    topo = C.build(routing="pinned", path="1-16-29-30", nodes="path")
    settings, _ = medium_choice(runs[0].params, topo.medium)
    assert isinstance(settings, dict)
    assert (settings["fading"], settings["fading_sigma"], settings["fading_coherence"]) == \
        ("lognormal", 2, 50)
    with pytest.raises(HarnessError, match="medium.fading"):
        experiment("""
            name: x
            topology: {builder: campus}
            medium: {fading: rayleigh}
            flows: [{src: 1, dst: 23}]
            """, tmp_path)


def test_a_subset_of_routers_keeps_its_links():
    campus = C.load_campus()
    whole = C.campus_links(campus)
    from harness.medium.link_table import link_table
    spec = MediumSpec.from_dict(campus.medium())
    part = link_table(C.radio_rows(campus, [16, 1, 13]), spec)
    for a, b in (("r1", "r16"), ("r16", "r13"), ("r13", "r1")):
        assert part.get(a, b).mean_dbm == pytest.approx(whole.get(a, b).mean_dbm, abs=1e-3)


def test_pinned_routes_run_hop_by_hop_both_ways():
    topo = C.build(routing="pinned", path="1-16-13-22", nodes="path")
    assert topo.node_names() == ["r1", "r16", "r13", "r22"]
    routes = {(r.node, r.dst): r.via for r in topo.routes}
    assert routes == {("r1", "r13"): "r16", ("r1", "r22"): "r16", ("r16", "r22"): "r13",
                      ("r13", "r1"): "r16", ("r22", "r1"): "r13", ("r22", "r16"): "r13"}
    assert topo.paths[("r22", "r1")] == ["r22", "r13", "r16", "r1"]
    topo.check_flow("r22", "r16")
    with pytest.raises(HarnessError, match="topology.path .1, 16, 13, 22. only"):
        C.build(routing="pinned", path="1-16-13-22").check_flow("r1", "r5")


def test_etx_snapshot_routes_every_pair_on_shortest_etx_paths():
    topo = C.build()
    table = C.campus_links(topo.campus, None, C.ETX_PROBE_BYTES)
    assert len(topo.paths) == 32 * 31          # the default campus is connected
    for (a, b), path in topo.paths.items():
        assert path[0] == a and path[-1] == b
        for x, y in zip(path, path[1:]):
            assert C.link_quality(table, x, y, 2) >= C.MIN_LINK_QUALITY
    assert topo.paths[("r5", "r23")] == ["r5", "r3", "r23"]    # as in the paper
    direct = [p for p in topo.paths.values() if len(p) == 2]
    assert all(C.link_quality(table, a, b, 2) >= C.MIN_LINK_QUALITY for a, b in direct)
    via = {(r.node, r.dst): r.via for r in topo.routes}
    assert via[("r5", "r23")] == "r3" and ("r5", "r3") not in via


def test_an_rts_threshold_goes_to_every_router_but_the_outside_pair():
    topo = C.build(routing="pinned", path="37-25-14-23", nodes="path", rate=5.5, rts=True,
                   rts_threshold=500, outside="auto")
    assert [s.rts for s in topo.stations.values()] == [500] * 4 + [False] * 2
    assert {s.rts for s in C.build(routing="pinned", path="5-3-23", rts=True).stations.values()
            } == {True}


def test_an_outside_pair_beside_a_pinned_path_is_hidden_from_it():
    # r37 - r25 - r14 - r23 (the path, RTS/CTS on) and, off it, the router hidden from most
    # of its hops with its best partner (RTS/CTS off: a network of its own)
    topo = C.build(routing="pinned", path="37-25-14-23", nodes="path", rate=5.5, rts=True,
                   outside="auto")
    names = topo.node_names()
    assert names[:4] == ["r37", "r25", "r14", "r23"] and len(names) == 6
    src, dst = names[4:]
    table = C.campus_links(topo.campus, None, C.ETX_PROBE_BYTES)
    assert C.hidden_hits(table, names[:4], src)                   # it breaks a hop unseen
    assert C.link_quality(table, src, dst, 5.5) >= C.MIN_LINK_QUALITY
    assert [topo.stations[n].rts for n in names] == [True] * 4 + [False] * 2
    assert topo.aliases["first"] == "r37" and topo.aliases["last"] == "r23"
    assert (topo.aliases["outside1"], topo.aliases["outside2"]) == (src, dst)
    topo.check_flow(src, dst)
    with pytest.raises(HarnessError, match="only"):
        topo.check_flow("r37", src)                               # no route into the path
    named = C.build(routing="pinned", path="37-25-14-23", nodes="path",
                    outside=f"{src[1:]}-{dst[1:]}")
    assert named.node_names() == names


def test_first_and_last_are_the_pinned_paths_ends_with_every_router_started(tmp_path):
    runs = experiment("""\
        name: mine
        topology: {builder: campus, routing: pinned, path: "5-3-23"}
        flows: [{src: first, dst: last}]
        """, tmp_path)
    assert runs[0].params["topology"]["nodes"] == "all"
    topo = C.build(routing="pinned", path="5-3-23")
    assert (topo.aliases["first"], topo.aliases["last"]) == ("r5", "r23")


@pytest.mark.parametrize("kwargs, key, match", [
    ({"routing": "pinned", "path": "1-23-16", "outside": "23-14"}, "topology.outside",
     "two different routers off the path"),
    ({"routing": "pinned", "path": "1-23-16", "outside": "5"}, "topology.outside",
     "auto, or two routers"),
    ({"routing": "pinned", "path": "1-23-16", "outside": "5-99"}, "topology.outside",
     "auto, or two routers"),
    ({"routing": "pinned", "path": "1-23-16", "outside": "4-30"}, "topology.outside",
     "4 and 30 are not linked at 2 Mbit/s"),
    ({"outside": "auto"}, "topology.outside", "only with routing: pinned"),
    ({"routing": "pinned", "path": "1-23-16", "rx_sensitivity": -60}, "topology.path",
     "not a path: 1 and 23 are not linked"),
    ({"routing": "pinned", "path": "1-99"}, "topology.path", "'99' in '1-99' is not a router"),
    ({"routing": "pinned", "path": "1-30"}, "topology.path", "not a path: 1 and 30 are not linked"),
    ({"routing": "pinned", "path": "1-23-1"}, "topology.path", "visits router 1 twice"),
    ({"routing": "pinned"}, "topology.path", "required with routing: pinned"),
    ({"path": "1-23"}, "topology.path", "only with routing: pinned"),
    ({"nodes": "path"}, "topology.nodes", "needs routing: pinned"),
    ({"campus": "nowhere.yaml"}, "topology.campus", "neither a known campus"),
])
def test_bad_builder_arguments_name_the_key(kwargs, key, match):
    with pytest.raises(HarnessError, match=match) as err:
        C.build(**kwargs)
    assert getattr(err.value, "path", key) == key


def experiment(text: str, tmp_path: Path):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    exp = schema.load(path)
    return expand(exp)


def test_a_user_flow_by_router_numbers(tmp_path):
    runs = experiment("""\
        name: mine
        topology: {builder: campus, rate: 2}
        flows: [{src: 5, dst: 23}]
        """, tmp_path)
    assert runs[0].params["flows"][0]["src"] == "5"
    assert runs[0].params["topology"]["routing"] == "etx"


@pytest.mark.parametrize("topology, flow, medium, match", [
    ("{builder: campus}", "{src: 5, dst: 99}", "",
     r"exp.yaml:3: flows\[0\].dst: no node '99' in the topology"),
    ("{builder: campus, routing: pinned, path: '5-3-23'}", "{src: 5, dst: 16}", "",
     r"flows\[0\].dst: '5' -> '16': routing: pinned carries flows between the routers of "
     r"topology.path \(5, 3, 23\) only"),
    ("{builder: campus, routing: pinned, path: '5-3-16'}", "{src: 5, dst: 16}", "",
     r"exp.yaml:2: topology.path: '5-3-16' is not a path: 3 and 16 are not linked"),
    ("{builder: campus}", "{src: 5, dst: 23}", "medium: {exponent: 4}",
     r"medium.exponent: not allowed with topology.builder 'campus'"),
    ("{builder: campus, rx_sensitivity: -40}", "{src: 5, dst: 23}", "",
     r"topology.rx_sensitivity: .*-60"),
    ("{builder: campus, rts_threshold: 500}", "{src: 5, dst: 23}", "",
     r"topology.rts_threshold: 500: only with rts: true"),
    ("{builder: campus, rts: true, rts_threshold: 3000}", "{src: 5, dst: 23}", "",
     r"topology.rts_threshold: 3000 is out of range; expected an integer in \[0, 2347\]"),
])
def test_bad_experiments_fail_before_anything_starts(tmp_path, topology, flow, medium, match):
    with pytest.raises(HarnessError, match=match):
        experiment(f"name: bad\ntopology: {topology}\nflows: [{flow}]\n{medium}\n", tmp_path)


def island_campus(tmp_path: Path) -> Path:
    """Two buildings 500 m apart: routers 1-2 in one, 3 in the other (unreachable)."""
    text = C.campus_path(C.DEFAULT_CAMPUS).read_text()
    data = __import__("yaml").safe_load(text)
    data["buildings"] = [{"name": "A", "outline": [0, 0, 40, 20], "floors": 1},
                         {"name": "B", "outline": [500, 0, 540, 20], "floors": 1}]
    data["routers"] = {1: ["A", 0, 5, 10, 2.5], 2: ["A", 0, 30, 10, 2.5],
                       3: ["B", 0, 520, 10, 2.5]}
    data["paths"] = []
    path = tmp_path / "island.yaml"
    path.write_text(__import__("yaml").safe_dump(data))
    return path


def test_an_unreachable_pair_is_refused(tmp_path):
    campus = island_campus(tmp_path)
    with pytest.raises(HarnessError, match=r"flows\[0\].dst: '1' -> '3'.*router 3 is unreachable "
                                           r"from router 1"):
        experiment(f"name: bad\ntopology: {{builder: campus, campus: {campus}}}\n"
                   "flows: [{src: 1, dst: 3}]\n", tmp_path)
    runs = experiment(f"name: ok\ntopology: {{builder: campus, campus: {campus}}}\n"
                      "flows: [{src: 1, dst: 2}]\n", tmp_path)
    assert len(runs) == 1


@pytest.mark.parametrize("edit, match", [
    (lambda d: d.pop("floor_height"), "floor_height: missing"),
    (lambda d: d["radio"].update(phy="g"), "radio.phy: 'g': only b"),
    (lambda d: d["propagation"].update(exponent=12), "propagation.exponent 12 is invalid"),
    (lambda d: d["propagation"].update(colour="red"), "propagation.colour: unknown key"),
    (lambda d: d["routers"].update({1: ["Nowhere", 0, 1, 1, 2]}), "routers.1: expected"),
    (lambda d: d["routers"].update({1: ["West", 0, 500, 1, 2]}), "outside building West"),
    (lambda d: d["routers"].update({1: ["West", 7, 5, 5, 2]}), "routers.1 floor"),
    (lambda d: d["buildings"][0]["walls"].append([1, 1, 2, 2, "glass"]), "walls.2.: expected"),
    (lambda d: d["paths"].append([1, 99]), r"paths\[14\]"),
])
def test_bad_campus_files_name_file_and_key(tmp_path, edit, match):
    import yaml
    data = yaml.safe_load(C.campus_path(C.DEFAULT_CAMPUS).read_text())
    edit(data)
    path = tmp_path / "campus.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(HarnessError, match=match) as err:
        C.load_campus(str(path))
    assert str(path) in str(err.value)


def test_floorplan_draws_png_and_svg(tmp_path):
    from harness import cli
    from topologies.campus_plan import link_rows
    png, svg = tmp_path / "plan.png", tmp_path / "plan.svg"
    assert cli.main(["floorplan", "--paths", "-o", str(png)]) == 0
    assert cli.main(["floorplan", "--shadowing-seed", "2", "--format", "svg", "-o", str(svg)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG" and b"<svg" in svg.read_bytes()[:400]
    rows = {2: link_rows(C.load_campus(), 2.0), 11: link_rows(C.load_campus(), 11.0)}
    assert len(rows[11]) < len(rows[2])             # 11 Mbit/s reaches fewer routers
    assert all(p >= 0.1 for _a, _b, p in rows[2])
    assert cli.main(["floorplan", "-o", str(tmp_path / "plan.jpg")]) == 2
