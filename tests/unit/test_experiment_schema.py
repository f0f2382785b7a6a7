"""Experiment files: what validates, and that every mistake names file, line, key and choices."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.experiment import schema
from harness.experiment.catalog import build_registry
from harness.experiment.registry import Builder, ParamSpec, Policy, load_callable
from harness.experiment.sweep import check_endpoints
from harness.kernel.tcp import CONGESTION_MODULES

REPO = Path(__file__).resolve().parents[2]

MINIMAL = """\
name: demo
topology: {builder: chain, hops: 2}
flows:
  - {src: first, dst: last}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def error_of(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(HarnessError) as info:
        schema.load(path)
    message = str(info.value)
    assert message.startswith(str(path)), message
    return message


def test_minimal_file_gets_every_default(tmp_path):
    exp = schema.load(write(tmp_path, MINIMAL))
    assert exp.name == "demo" and exp.repetitions == 1 and exp.seed == 1
    assert exp.output == "results/demo" and exp.sweep == {}
    topo = exp.base["topology"]
    assert topo == {"builder": "chain", "hops": 2, "spacing": None, "geometry": "ns2",
                    "mode": "ibss", "rate": "auto", "rts": False, "phy": "g", "channel": 1,
                    "txpower_dbm": None, "retry_limit": None}
    flow = exp.base["flows"][0]
    assert flow == {"src": "first", "dst": "last", "congestion": "cubic", "duration": 20.0,
                    "direction": "forward", "protocol": "tcp", "bitrate": None, "start": 0.0,
                    "count": 1}
    assert exp.base["policy"] == {}
    assert exp.base["medium"]["enabled"] is True


def test_policies_compose_and_flow_defaults_follow_them(tmp_path):
    exp = schema.load(write(tmp_path, MINIMAL.replace("flows:", """\
policy:
  cwnd_clamp: 4
  rwnd_clamp: 4
  delayed_ack: false
  sack: true
  congestion: westwood
  mac: {rate: 2, rts: true, retry_limit: 7}
duration: 30
flows:""")))
    assert exp.base["policy"] == {"cwnd_clamp": 4, "rwnd_clamp": 4, "delayed_ack": False,
                                  "sack": True, "congestion": "westwood",
                                  "mac": {"rate": 2, "rts": True, "retry_limit": 7}}
    assert exp.base["flows"][0]["congestion"] == "westwood"
    assert exp.base["flows"][0]["duration"] == 30.0


def test_bad_congestion_names_key_line_and_modules(tmp_path):
    msg = error_of(tmp_path, """\
        name: demo
        topology: {builder: chain}
        flows:
          - {src: first, dst: last, congestion: cubc}
        """)
    assert ":4: flows[0].congestion:" in msg
    assert "'cubc'" in msg or "cubc" in msg
    assert ", ".join(CONGESTION_MODULES) in msg


def test_unknown_top_level_key(tmp_path):
    msg = error_of(tmp_path, MINIMAL + "repetition: 3\n")
    assert ":5: repetition: unknown key" in msg
    assert "repetitions" in msg


def test_unknown_builder_lists_the_registered_ones(tmp_path):
    msg = error_of(tmp_path, MINIMAL.replace("builder: chain", "builder: star"))
    assert "topology.builder: unknown builder 'star'; allowed: campus, chain" in msg


def test_unknown_builder_parameter_lists_its_parameters(tmp_path):
    msg = error_of(tmp_path, MINIMAL.replace("hops: 2", "hopz: 2"))
    assert "topology.hopz: unknown parameter of builder 'chain'" in msg
    assert "hops, spacing, geometry, mode, rate, rts" in msg


def test_unknown_policy(tmp_path):
    msg = error_of(tmp_path, MINIMAL + "policy: {cwnd_clmp: 4}\n")
    assert "policy.cwnd_clmp: unknown policy; allowed: cwnd_clamp, rwnd_clamp" in msg


@pytest.mark.parametrize("snippet, path, allowed", [
    ("policy: {mac: {retry_limit: 40}}", "policy.mac.retry_limit", "[1, 31]"),
    ("policy: {mac: {rate: 3}}", "policy.mac.rate", "one of 1, 2, 5.5, 11"),
    ("policy: {mac: {rts: 1}}", "policy.mac.rts", "true or false"),
    ("policy: {cwnd_clamp: 0}", "policy.cwnd_clamp", "null (unclamped)"),
    ("policy: {cwnd_clamp: true}", "policy.cwnd_clamp", "an integer"),
    ("policy: {delayed_ack: null}", "policy.delayed_ack", "true or false"),
    ("medium: {propagation: fog}", "medium.propagation", "two_ray"),
    ("repetitions: 0", "repetitions", "an integer in [1, 10000]"),
])
def test_bad_values_name_path_and_allowed(tmp_path, snippet, path, allowed):
    msg = error_of(tmp_path, MINIMAL + snippet + "\n")
    assert f"{path}:" in msg and allowed in msg


def test_missing_required_keys(tmp_path):
    assert "topology: missing (required)" in error_of(tmp_path, "name: x\nflows: []\n")
    msg = error_of(tmp_path, "name: x\ntopology: {hops: 2}\nflows: [{src: a, dst: b}]\n")
    assert "topology.builder: missing (required); one of campus, chain" in msg
    msg = error_of(tmp_path, "name: x\ntopology: {builder: chain}\nflows: [{src: a}]\n")
    assert "flows[0].dst: missing (required)" in msg


def test_udp_flow_needs_bitrate_and_bitrates_parse(tmp_path):
    msg = error_of(tmp_path, MINIMAL.replace("dst: last}", "dst: last, protocol: udp}"))
    assert "flows[0].bitrate: missing; required when protocol is udp" in msg
    exp = schema.load(write(tmp_path, MINIMAL.replace(
        "dst: last}", "dst: last, protocol: udp, bitrate: 2.5M}")))
    assert exp.base["flows"][0]["bitrate"] == 2.5e6
    msg = error_of(tmp_path, MINIMAL.replace("dst: last}", "dst: last, bitrate: fast}"))
    assert "flows[0].bitrate: 'fast' is not a bitrate" in msg


def test_same_src_and_dst_is_an_error(tmp_path):
    msg = error_of(tmp_path, MINIMAL.replace("dst: last", "dst: first"))
    assert "flows[0].dst: same node as src" in msg


def test_duplicate_flow_is_an_error_that_points_at_count(tmp_path):
    msg = error_of(tmp_path, MINIMAL + "  - {src: first, dst: last}\n")
    assert "flows[1]: identical to flows[0]; for identical parallel flows give flows[0] " \
           "count: 2 instead" in msg
    # the same pair in another direction or start time is a different flow
    schema.load(write(tmp_path, MINIMAL + "  - {src: first, dst: last, start: 1}\n"))


def endpoint_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    exp = schema.load(path)  # names alone are fine: nodes come from the builder
    with pytest.raises(HarnessError) as info:
        check_endpoints(exp)
    message = str(info.value)
    assert message.startswith(f"{path}:"), message
    assert "\n" not in message
    return message


def test_flow_endpoints_are_checked_against_the_built_topology(tmp_path):
    chain = "name: e\ntopology: {builder: chain, hops: 2}\nflows:\n"
    msg = endpoint_error(tmp_path, chain + "  - {src: first, dst: last}\n"
                                           "  - {src: sta2, dst: node3}\n")
    assert msg.endswith(":5: flows[1].dst: no node 'node3' in the topology; "
                        "allowed: sta1, sta2, sta3, first, last")
    msg = endpoint_error(tmp_path, chain + "  - {src: last, dst: sta3}\n")
    assert "flows[0].dst: 'sta3' is the same node as src 'last' (sta3)" in msg
    check_endpoints(schema.load(write(tmp_path, chain + "  - {src: sta3, dst: sta1}\n")))


def test_flow_endpoints_are_checked_at_every_sweep_point(tmp_path):
    text = ("name: e\ntopology: {builder: chain}\nflows: [{src: sta5, dst: first}]\n"
            "sweep:\n  topology.hops: [4, 5, 3, 6]\n")
    msg = endpoint_error(tmp_path, text)
    assert "flows[0].src: no node 'sta5' in the topology at sweep point topology.hops=3; " \
           "allowed: sta1, sta2, sta3, sta4, first, last" in msg
    exp = schema.load(write(tmp_path, text.replace(", 3, 6", ", 6")))
    check_endpoints(exp)
    whole = ("name: e\ntopology: {builder: chain}\nflows: [{src: first, dst: sta3}]\n"
             "sweep:\n  topology: [{builder: chain, hops: 2}, {builder: chain, hops: 1}]\n")
    assert "at sweep point sweep.topology[1];" in endpoint_error(tmp_path, whole)


def test_numbers_are_canonical_so_ids_do_not_depend_on_spelling(tmp_path):
    a = schema.load(write(tmp_path, MINIMAL + "policy: {mac: {rate: 2.0}}\n"))
    b = schema.loads(MINIMAL + "policy: {mac: {rate: 2}}\n")
    assert a.base == b.base
    assert isinstance(schema.loads(MINIMAL.replace("hops: 2", "hops: 2.0")).base["topology"]["hops"], int)
    msg = error_of(tmp_path, MINIMAL.replace("hops: 2", "hops: 2.5"))
    assert "topology.hops: 2.5" in msg


def test_yaml_syntax_error_points_at_the_line(tmp_path):
    msg = error_of(tmp_path, "name: x\ntopology: {builder: chain\nflows: []\n")
    assert "not valid YAML" in msg
    assert msg.startswith(f"{tmp_path / 'exp.yaml'}:")


def test_sweep_values_are_checked_with_the_parameter_spec(tmp_path):
    exp = schema.load(write(tmp_path, MINIMAL + """\
sweep:
  topology.hops: [1, 2, 3]
  policy.cwnd_clamp: [1, 2, null]
  policy.mac.rts: [false, true]
  flows[0].congestion: [reno, vegas]
"""))
    assert exp.sweep == {"topology.hops": [1, 2, 3], "policy.cwnd_clamp": [1, 2, None],
                         "policy.mac.rts": [False, True], "flows[0].congestion": ["reno", "vegas"]}
    msg = error_of(tmp_path, MINIMAL + "sweep:\n  policy.cwnd_clamp: [1, -2]\n")
    assert ":6: sweep.policy.cwnd_clamp[1]:" in msg and "out of range" in msg


@pytest.mark.parametrize("sweep, expect", [
    ("topology.hopz: [1]", "unknown parameter of builder 'chain'"),
    ("seed: [1, 2]", "cannot sweep 'seed'"),
    ("topology.hops: 3", "expected a non-empty list"),
    ("topology.hops: []", "expected a non-empty list"),
    ("topology.hops: [1, 1]", "duplicate value 1"),
    ("flows[3].congestion: [reno]", "flows has 1 element(s), no index 3"),
    ("flows[0].congestion: [tahoe]", "one of reno, cubic"),
    ("'topology..hops': [1]", "bad parameter path"),
])
def test_bad_sweeps(tmp_path, sweep, expect):
    msg = error_of(tmp_path, MINIMAL + "sweep:\n  " + sweep + "\n")
    assert "sweep." in msg and expect in msg, msg


def test_custom_registry_declares_new_builders_and_policies():
    registry = build_registry()
    registry.add_builder(Builder("grid", "topologies.grid:build", (
        ParamSpec("rows", "int", default=3, min=1), ParamSpec("cols", "int", default=3, min=1))))
    registry.add_policy(Policy("ecn", "policies.tcp:ecn",
                               (ParamSpec("ecn", "bool", default=False),), scalar=True))
    exp = schema.loads("name: g\ntopology: {builder: grid, rows: 4}\npolicy: {ecn: true}\n"
                       "flows: [{src: a, dst: b}]\n", registry=registry)
    assert exp.base["topology"] == {"builder": "grid", "rows": 4, "cols": 3}
    assert exp.base["policy"] == {"ecn": True}
    with pytest.raises(HarnessError, match="allowed: campus, chain, lan, manet, mesh_chain, grid"):
        schema.loads("name: g\ntopology: {builder: ring}\nflows: [{src: a, dst: b}]\n",
                     registry=registry)


def test_realisations_are_imported_only_when_asked():
    with pytest.raises(HarnessError, match="policy 'x': its module no_such_pkg.mod does not exist"):
        load_callable("no_such_pkg.mod:apply", "policy 'x'")
    with pytest.raises(HarnessError, match="harness.analysis.stats has no 'nope'"):
        load_callable("harness.analysis.stats:nope", "policy 'x'")
    assert load_callable("harness.analysis.stats:mean", "stat")([1, 3]) == 2
    assert load_callable(len, "builder 'x'") is len


def test_endpoint_aliases():
    nodes = ["sta1", "sta2", "sta3"]
    assert schema.resolve_endpoint("first", nodes) == "sta1"
    assert schema.resolve_endpoint("last", nodes) == "sta3"
    assert schema.resolve_endpoint("sta2", nodes) == "sta2"
    with pytest.raises(HarnessError, match="no node 'sta9'; nodes: sta1, sta2, sta3"):
        schema.resolve_endpoint("sta9", nodes)


@pytest.mark.parametrize("name", ["chain_window.yaml", "quick_chain.yaml"])
def test_example_experiments_validate(name):
    exp = schema.load(REPO / "experiments" / name)
    assert exp.base["topology"]["builder"] == "chain"


def test_chain_window_example_is_the_promised_sweep():
    exp = schema.load(REPO / "experiments" / "chain_window.yaml")
    assert exp.sweep["topology.hops"] == [1, 2, 3, 4, 5, 6]
    assert exp.sweep["policy.cwnd_clamp"] == [1, 2, 3, 4, 6, None]
    assert exp.sweep["topology.rts"] == [False, True]
    assert exp.base["topology"]["rate"] == 2


def test_quick_chain_example_is_tiny():
    exp = schema.load(REPO / "experiments" / "quick_chain.yaml")
    assert exp.sweep == {"topology.hops": [1, 2, 3]} and exp.repetitions == 1
    assert exp.base["flows"][0]["duration"] == 10.0


def test_docs_describe_every_declared_key():
    text = (REPO / "docs" / "experiments.md").read_text()
    registry = build_registry()
    names = [s.name for b in registry.builders.values() for s in b.params]
    names += list(registry.policies) + [s.name for p in registry.policies.values() for s in p.params]
    names += list(registry.medium) + [s.name for s in schema.FLOW_SPECS] + list(schema.TOP_KEYS)
    missing = sorted({n for n in names if f"`{n}`" not in text})
    assert not missing, f"docs/experiments.md does not mention {missing}"


def test_rates_must_fit_the_phy(tmp_path):
    msg = error_of(tmp_path, MINIMAL.replace("hops: 2", "hops: 2, phy: b, rate: 54"))
    assert "topology.rate: 54 Mbit/s is not an 802.11b rate" in msg and "1, 2, 5.5, 11" in msg
    msg = error_of(tmp_path, MINIMAL.replace("hops: 2", "hops: 2, phy: b")
                   + "policy: {mac: {rate: 6}}\n")
    assert "policy.mac.rate: 6 Mbit/s is not an 802.11b rate" in msg
    msg = error_of(tmp_path, MINIMAL.replace("hops: 2", "hops: 2, phy: b")
                   + "sweep:\n  topology.rate: [2, 11, 24]\n")
    assert "sweep.topology.rate[2]: value 24 gives topology.rate: 24 Mbit/s" in msg
    # A combination only the product reveals is caught before any run.
    from harness.experiment.sweep import expand
    exp = schema.loads(MINIMAL + "sweep:\n  topology.phy: [g, b]\n  topology.rate: [2, 54]\n")
    with pytest.raises(HarnessError, match="sweep point topology.phy=b, topology.rate=54"):
        expand(exp)


def test_a_key_given_twice_is_an_error(tmp_path):
    msg = error_of(tmp_path, MINIMAL + "sweep:\n  topology.hops: [1, 2]\nsweep:\n  topology.rts: [true]\n")
    assert ":7: sweep: appears twice (first on line 5)" in msg
    msg = error_of(tmp_path, MINIMAL.replace("hops: 2}", "hops: 2, hops: 3}"))
    assert ":2: topology.hops: appears twice (first on line 2)" in msg


def test_a_per_node_queue_is_a_checked_mapping_with_a_canonical_order():
    exp = schema.loads("name: q\ntopology: {builder: lan, wireless: true}\n"
                       "medium: {queues: {client: 200, ap1: 20.0}}\n"
                       "flows: [{src: server, dst: client}]\n")
    assert list(exp.base["medium"]["queues"].items()) == [("ap1", 20), ("client", 200)]
    with pytest.raises(HarnessError, match=r"medium.queues.ap1.*out of range.*\[0, 255\]"):
        schema.loads("name: q\ntopology: {builder: lan, wireless: true}\n"
                     "medium: {queues: {ap1: 300}}\nflows: [{src: server, dst: client}]\n")
    with pytest.raises(HarnessError, match=r"medium.queues.*a mapping name -> integer"):
        schema.loads("name: q\ntopology: {builder: lan, wireless: true}\n"
                     "medium: {queues: 20}\nflows: [{src: server, dst: client}]\n")


def test_link_overrides_are_checked_mappings_whose_ends_are_the_topologys_radios():
    head = "name: q\ntopology: {builder: mesh_chain, hops: 2}\nflows: [{src: first, dst: last}]\n"
    exp = schema.loads(head + "medium: {links: [{per: 0.3, b: sta2, a: sta1}]}\n")
    assert exp.base["medium"]["links"] == [{"a": "sta1", "b": "sta2", "per": 0.3}]
    assert list(exp.base["medium"]["links"][0]) == ["a", "b", "per"]
    with pytest.raises(HarnessError, match=r"medium.links\[0\].pr: unknown key; allowed a, b"):
        schema.loads(head + "medium: {links: [{a: sta1, b: sta2, pr: 0.3}]}\n")
    with pytest.raises(HarnessError, match=r"medium.links\[0\].b: 'sta9' is not a node .*"
                                           r"allowed sta1, sta2, sta3"):
        schema.loads(head + "medium: {links: [{a: sta1, b: sta9, per: 0.3}]}\n")
    with pytest.raises(HarnessError, match=r"medium.links\[0\].per 1.5 is invalid: allowed a "
                                           r"number in \[0, 1\] \(a probability\)"):
        schema.loads(head + "medium: {links: [{a: sta1, b: sta2, per: 1.5}]}\n")
    with pytest.raises(HarnessError, match=r"medium.links: .*expected a list of mappings"):
        schema.loads(head + "medium: {links: {a: sta1}}\n")


def test_basic_rates_are_a_checked_mapping_of_rate_lists_left_out_of_old_run_ids():
    head = "name: q\ntopology: {builder: mesh_chain, hops: 2}\nflows: [{src: first, dst: last}]\n"
    exp = schema.loads(head + "medium: {basic_rates: {b: [2, 1]}}\n")
    assert exp.base["medium"]["basic_rates"] == {"b": [1.0, 2.0]}
    assert "basic_rates" not in schema.loads(head).base["medium"]      # omitted by default
    with pytest.raises(HarnessError, match=r"medium.basic_rates.b rate 3.0 is invalid: "
                                           r"allowed 1, 2, 5.5, 11"):
        schema.loads(head + "medium: {basic_rates: {b: [1, 3]}}\n")
    with pytest.raises(HarnessError, match=r"medium.basic_rates.x is invalid: allowed b, g"):
        schema.loads(head + "medium: {basic_rates: {x: [1]}}\n")
    with pytest.raises(HarnessError, match=r"medium.basic_rates.b: 1 is not allowed; expected "
                                           r"a non-empty list of numbers"):
        schema.loads(head + "medium: {basic_rates: {b: 1}}\n")
    with pytest.raises(HarnessError, match=r"medium.basic_rates: .*a mapping name -> a "
                                           r"non-empty list of numbers"):
        schema.loads(head + "medium: {basic_rates: [1, 2]}\n")


def test_a_rate_loss_is_a_checked_mapping_whose_rates_are_one_spelling():
    exp = schema.loads("name: q\ntopology: {builder: lan, wireless: true}\n"
                       "medium: {rate_loss: {11.0: 2.7, 5.5: 4.6}}\n"
                       "flows: [{src: server, dst: client}]\n")
    assert list(exp.base["medium"]["rate_loss"].items()) == [("11", 2.7), ("5.5", 4.6)]
    with pytest.raises(HarnessError, match=r"medium.rate_loss.5.5.*out of range.*\[-20.0, 40.0\]"):
        schema.loads("name: q\ntopology: {builder: lan, wireless: true}\n"
                     "medium: {rate_loss: {5.5: 50}}\nflows: [{src: server, dst: client}]\n")
    with pytest.raises(HarnessError, match=r"medium.rate_loss.*a mapping name -> number"):
        schema.loads("name: q\ntopology: {builder: lan, wireless: true}\n"
                     "medium: {rate_loss: 3}\nflows: [{src: server, dst: client}]\n")


@pytest.mark.parametrize("content, says", [
    (b"\x00\x01\xffbinary", "byte 2 is not UTF-8 text"),
    (b"name: x\x00\n", "holds NUL bytes"),
])
def test_a_binary_experiment_file_gets_one_line_naming_it(tmp_path, content, says):
    path = tmp_path / "exp.yaml"
    path.write_bytes(content)
    with pytest.raises(HarnessError) as caught:
        schema.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not an experiment file") and says in message
    assert "\n" not in message
