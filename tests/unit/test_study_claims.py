"""Claims beside ours (harness.study.claims), finding studies, and the policies the chain studies use (pure logic)."""
from __future__ import annotations

import pytest

from harness.analysis.records import achievable_bound, best_limited, relative_to_best, smallest_reaching
from harness.errors import HarnessError
from harness.experiment import schema
from harness.experiment.realise import builder_arguments, medium_settings
from harness.study import study_keys as paper_keys
from harness.study import study_module as paper_module
from harness.study import study_of as paper_of
from harness.study.claims import difference, verdict_band
from policies.adaptive_window import cwl_for_rthc, in_table, parse_mpath_hop_count, walk
from policies.segment_size import expected_payload
from topologies.geometry import PRESETS


def test_beyond_the_table_extrapolates_with_k_one_fifth():
    assert not in_table(31) and in_table(30)
    assert cwl_for_rthc(40) == 8 and cwl_for_rthc(32) == 6
    with pytest.raises(HarnessError, match="allowed an integer >= 1"):
        cwl_for_rthc(0)


def test_mpath_hop_count_parsing():
    text = ("DEST ADDR         NEXT HOP          IFACE\tSN\tMETRIC\tQLEN\tEXPTIME\tDTIM\tDRET\t"
            "FLAGS\tHOP_COUNT\tPATH_CHANGE\n"
            "02:00:00:00:03:00 02:00:00:00:01:00 wlan0\t5\t342\t0\t4880\t100\t0\t0x15\t3\t1\n")
    assert parse_mpath_hop_count(text) == 3
    assert parse_mpath_hop_count("command failed: No such file or directory (-2)") is None


def test_walk_counts_hops_and_refuses_loops():
    nxt = {"a": ("b", 1), "b": ("c", 1), "c": (None, 1)}
    assert walk(lambda n: nxt[n], "a", "d") == 3
    mesh = {"a": (None, 4)}
    assert walk(lambda n: mesh[n], "a", "z") == 4
    loop = {"a": ("b", 1), "b": ("a", 1)}
    with pytest.raises(HarnessError, match="loops"):
        walk(lambda n: loop[n], "a", "z")


def test_segment_size_payloads():
    assert expected_payload(1012) == 1000
    assert expected_payload(40) == 76 and expected_payload(88) == 76


def test_paper_presets_come_from_the_papers_geometry():
    p1, p4 = PRESETS["ns2-001"], PRESETS["ns2-004"]
    assert (p1["spacing"], p1["tx_range"], p1["cs_range"], p1["queue"]) == (250, 250, 500, 25)
    assert (p4["spacing"], p4["tx_range"], p4["cs_range"], p4["queue"]) == (200, 250, 550, 50)
    assert p4["capture_threshold"] == 10 and p1["basic_rates"] == {"b": [1]}
    params = schema.loads("name: x\ntopology: {builder: chain, geometry: ns2-004, phy: b, "
                          "rate: 11, rts: true}\nflows: [{src: first, dst: last}]\n"
                          "medium: {queue: 10}\n").base
    m = medium_settings(params)
    assert m["queue"] == 10 and m["cs_range"] == 550 and m["basic_rates"] == {"b": [1]}
    assert builder_arguments(params["topology"])["spacing"] == 200


def test_difference_and_verdicts():
    assert difference(5, 6) == "+20.0%"
    assert difference([3, 4], 3) == "inside" and difference([3, 4], 6) == "+2 above"
    assert difference(5, None) == "-"
    assert verdict_band([2, 3], 4) == "differs" and verdict_band([2, 3], 4, 1) == "agrees"
    assert verdict_band(3, None) == "not measured"


def test_achievable_helpers():
    s = {1: [10.0], 2: [20.0], 3: [19.5], 4: [18.0], None: [17.0]}
    assert best_limited(s) == 2 and smallest_reaching(s, 0.95) == 2
    assert smallest_reaching({1: [1.0], None: [10.0]}) is None
    assert achievable_bound(3) == 3 and achievable_bound(7) == 4 and achievable_bound(15) == 7
    rel = relative_to_best({1: [10.0, 12.0], 2: [20.0], None: [16.0]})
    assert rel == {1: [0.5, 0.6], 2: [1.0], None: [0.8]}
    assert relative_to_best({}) == {}


def test_experiments_map_to_papers():
    assert paper_of("paper001_cwl_sweep") == "001" and paper_of("paper004_flows_quick") == "004"
    assert paper_of("quick_chain") == "" and paper_of("paper999_x") == ""


def test_the_checkouts_studies_are_found_and_provide_what_reports_use():
    assert paper_keys() == ["000", "001", "002", "003", "004"]
    for key in paper_keys():
        module = paper_module(key)
        assert module.PAPER.key == key and module.ROWS_FROM
        assert all(prefix.startswith(module.PAPER.prefix) for prefix in module.ROWS_FROM)
        for name in ("rows", "why_differ", "report_section"):
            assert callable(getattr(module, name)), f"study {key}: {name}"
    with pytest.raises(HarnessError, match="study .999. is unknown: allowed 000, 001, 002, 003, 004"):
        paper_module("999")


def test_a_study_is_found_by_looking_not_by_name(tmp_path, monkeypatch):
    """A package of HARNESS_STUDIES with a PAPER is a study; its experiments are found by
    their names' prefix; a package without PAPER is not a study."""
    from harness import study
    top = tmp_path / "otherstudies"
    (top / "mine").mkdir(parents=True)
    (top / "helpers").mkdir()
    (top / "__init__.py").write_text("")
    (top / "helpers" / "__init__.py").write_text("")
    (top / "mine" / "__init__.py").write_text("")
    (top / "mine" / "paper.py").write_text(
        "from harness.study.claims import Paper\nPAPER = Paper('777', 'A paper', [])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("HARNESS_STUDIES", "otherstudies")
    assert study.studies() == {"777": "otherstudies.mine.paper"}
    assert study.study_of("paper777_sweep") == "777" and study.study_of("paper001_x") == ""
    assert study.study_module("777").PAPER.title == "A paper"


class _Res:
    def __init__(self, stdout: str, returncode: int = 0):
        self.stdout, self.returncode = stdout, returncode


class _Node:
    """A chain station answering ``ip route get`` like Linux (static routes hop by hop)."""

    def __init__(self, i: int, n: int):
        self.i, self.n = i, n
        self.ips = [f"10.0.0.{i + 1}/24"]

    @property
    def ip(self) -> str:
        return self.ips[0].split("/")[0]

    def cmd(self, args, check: bool = True):
        if args[:2] == ["iw", "dev"]:
            return _Res("command failed: Operation not supported (-95)", 161)
        dst = int(args[-1].split(".")[-1]) - 1
        if abs(dst - self.i) == 1:
            return _Res(f"{args[-1]} dev wlan0 src {self.ip} uid 0 \\    cache ")
        nxt = self.i + (1 if dst > self.i else -1)
        return _Res(f"{args[-1]} via 10.0.0.{nxt + 1} dev wlan0 src {self.ip} uid 0")


class _Net:
    def __init__(self, n: int):
        self.nodes = {f"sta{i + 1}": _Node(i, n) for i in range(n)}
        self.radios = []

    def __getitem__(self, name: str):
        return self.nodes[name]


def test_route_hops_walks_static_routes_both_ways():
    from policies.adaptive_window import route_hops
    net = _Net(8)
    assert route_hops(net, "sta1", "sta8") == 7 and route_hops(net, "sta8", "sta1") == 7
    assert route_hops(net, "sta3", "sta4") == 1
    assert cwl_for_rthc(route_hops(net, "sta1", "sta8") * 2) == 3   # paper: 7 hops -> 3
