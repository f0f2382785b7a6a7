"""From resolved parameters to builder/medium/traffic arguments; declaration vs builder drift."""
from __future__ import annotations

import inspect

import pytest

from harness.errors import HarnessError
from harness.experiment import schema
from harness.experiment.realise import builder_arguments, flow_instances, medium_settings
from harness.experiment.registry import default_registry
from topologies import BUILDERS, chain, geometry

TEXT = """\
name: r
topology: {builder: chain, hops: 2}
flows:
  - {src: first, dst: last, count: 2, start: 5}
  - {src: last, dst: sta2}
"""


def test_the_chain_accepts_every_geometry_preset_and_only_those():
    spec = next(p for p in chain.BUILDER.params if p.name == "geometry")
    assert spec.choices == geometry.GEOMETRIES == tuple(geometry.PRESETS)
    assert spec.default in geometry.PRESETS


def test_builders_are_discovered_and_reach_the_registry():
    assert BUILDERS["chain"] is chain.BUILDER
    assert default_registry().builders == BUILDERS


def test_builder_arguments():
    params = schema.loads(TEXT).base
    args = builder_arguments(params["topology"])
    assert args == {"hops": 2, "spacing": 200.0, "mode": "ibss", "rate": None, "rts": False,
                    "phy": "g", "channel": 1, "txpower_dbm": None, "retry_limit": None}
    params = schema.loads(TEXT.replace("hops: 2", "hops: 2, geometry: ns2-edge, rate: 11, "
                                                  "spacing: 180")).base
    args = builder_arguments(params["topology"])
    assert args["spacing"] == 180.0 and args["rate"] == 11


def test_declared_chain_parameters_are_arguments_of_the_real_builder():
    accepted = set(inspect.signature(chain.BUILDER.build).parameters)
    params = schema.loads(TEXT).base
    assert set(builder_arguments(params["topology"])) <= accepted


def test_medium_settings_take_ranges_from_the_geometry_unless_given():
    params = schema.loads(TEXT).base
    assert medium_settings(params) == {"enabled": True, "pcap": False,
                                       "tx_range": 250.0, "cs_range": 550.0}
    params = schema.loads(TEXT + "medium: {cs_range: 400, propagation: two_ray}\n").base
    settings = medium_settings(params)
    assert settings["cs_range"] == 400.0 and settings["tx_range"] == 250.0
    assert settings["propagation"] == "two_ray"
    params = schema.loads(TEXT.replace("hops: 2", "hops: 2, geometry: custom")).base
    assert "tx_range" not in medium_settings(params)


def test_flow_instances_expand_count_resolve_names_and_order_by_start():
    params = schema.loads(TEXT).base
    flows = flow_instances(params, ["sta1", "sta2", "sta3"])
    assert [(f["src"], f["dst"], f["flow"], f["copy"], f["start"]) for f in flows] == [
        ("sta3", "sta2", 1, 0, 0.0), ("sta1", "sta3", 0, 0, 5.0), ("sta1", "sta3", 0, 1, 5.0)]
    with pytest.raises(HarnessError, match="flows\\[1\\].dst: no node 'sta2'"):
        flow_instances(params, ["sta1", "sta9"])
