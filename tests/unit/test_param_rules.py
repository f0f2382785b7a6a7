"""One source for every rule: a parameter that several keys take (a radio's retry limit, a
window clamp) is declared once, in the layer that knows the fact, and every declaration of a
builder or policy that takes it is that rule (``ParamSpec.variant``), not a copy of it."""
from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.experiment.registry import default_registry
from harness.kernel import tcp, wireless
from harness.medium import spec as medium
from harness.medium.spec import MediumSpec
from harness.params import ParamSpec, SchemaError

#: key in an experiment file -> the rule it must follow
RULES = {"channel": wireless.CHANNEL, "retry_limit": wireless.RETRY_LIMIT,
         "rts_threshold": wireless.RTS_THRESHOLD, "txpower_dbm": wireless.TXPOWER_DBM,
         "antenna_gain_dbi": wireless.ANTENNA_GAIN_DBI, "cwnd_clamp": tcp.WINDOW_CLAMP,
         "rwnd_clamp": tcp.WINDOW_CLAMP}


#: medium key -> the medium's rule for it (a map's rule holds for each of its values)
MEDIUM_RULES = {"exponent": medium.EXPONENT, "queue": medium.QUEUE_FRAMES,
                "queues": medium.QUEUE_FRAMES, "rate_loss": medium.RATE_LOSS_DB,
                "height": medium.METRES, "tx_range": medium.METRES, "cs_range": medium.METRES,
                "capture_threshold": medium.DB_AT_LEAST_0, "shadowing": medium.DB_AT_LEAST_0,
                "fading_sigma": medium.DB_AT_LEAST_0,
                "fading_coherence": medium.FADING_COHERENCE_MS,
                "cck_interference_weight": medium.CCK_INTERFERENCE_WEIGHT}


def declared():
    registry = default_registry()
    for spec in registry.medium.values():
        yield f"medium.{spec.name}", spec
    for builder in registry.builders.values():
        for spec in builder.params:
            yield f"topology.{spec.name} ({builder.name})", spec
    for policy in registry.policies.values():
        for spec in policy.params:
            yield f"policy.{policy.name}.{spec.name}", spec


def test_every_declaration_of_a_ruled_key_is_the_rule():
    seen, wrong = set(), []
    for where, spec in declared():
        rules = MEDIUM_RULES if where.startswith("medium.") or spec.name == "rate_loss" else RULES
        rule = rules.get(spec.name)
        if rule is None:
            continue
        seen.add(spec.name)
        same_type = spec.type == rule.type or (spec.type, rule.type) in {("intmap", "int"),
                                                                          ("floatmap", "float")}
        if not same_type or (spec.min, spec.max, spec.min_exclusive, spec.choices) != (
                rule.min, rule.max, rule.min_exclusive, rule.choices):
            wrong.append(f"{where}: {spec.allowed()} (the rule: {rule.allowed()})")
    assert not wrong, "\n".join(wrong)
    # antenna gains come from a campus file or Python, no experiment key takes one yet
    expected = (set(RULES) - {"antenna_gain_dbi"}) | set(MEDIUM_RULES)
    assert seen == expected, f"unused: {sorted(expected - seen)}"


def test_the_schema_and_the_medium_take_the_same_queues():
    """A queue of 0 frames (only the frame in service) is mediumd's and the medium's; the
    schema refused it once, with its own copy of the range."""
    assert medium.QUEUE_FRAMES.variant(nullable=True).check(0, "medium.queue") == 0
    registry = default_registry()
    assert registry.medium["queue"].check(0, "medium.queue") == 0
    assert MediumSpec.from_dict({"queue": 0, "queues": {"ap1": 255}}).queue == 0
    for key, value in (("queue", 256), ("queues", {"ap1": 256})):
        with pytest.raises(SchemaError, match=r"out of range; expected .*\[0, 255\]"):
            registry.medium[key].check(value, f"medium.{key}")
        with pytest.raises(HarnessError, match=r"allowed an integer in \[0, 255\]"):
            MediumSpec.from_dict({key: value})


def test_the_schema_and_the_medium_agree_on_a_positive_distance():
    """tx_range 0.5 m is a distance (> 0) for both; 0 for neither."""
    registry = default_registry()
    assert registry.medium["tx_range"].check(0.5, "medium.tx_range") == 0.5
    assert MediumSpec.from_dict({"tx_range": 0.5, "cs_range": 0.5}).tx_range == 0.5
    with pytest.raises(SchemaError, match=r"medium.tx_range: 0.0 is out of range; expected a "
                                          r"number > 0, or null"):
        registry.medium["tx_range"].check(0, "medium.tx_range")
    with pytest.raises(HarnessError, match=r"medium.tx_range 0 is invalid: allowed a number > 0 "
                                           r"\(metres\)"):
        MediumSpec.from_dict({"tx_range": 0})


def test_an_exclusive_minimum_needs_a_number_and_a_minimum():
    assert ParamSpec("x", "float", min=0, max=1, min_exclusive=True).allowed() == \
        "a number in (0, 1]"
    with pytest.raises(ValueError, match="min_exclusive needs a number with a min"):
        ParamSpec("x", "float", min_exclusive=True)
    with pytest.raises(ValueError, match="keeps the rule's min_exclusive"):
        medium.METRES.variant(min_exclusive=False)


def test_a_variant_keeps_the_rule():
    spec = wireless.RETRY_LIMIT.variant(name="x", nullable=True, null_label="unchanged")
    assert (spec.name, spec.min, spec.max, spec.nullable) == ("x", 1, 31, True)
    with pytest.raises(ValueError, match="keeps the rule's max, min"):
        wireless.RETRY_LIMIT.variant(min=0, max=255)


def test_validate_is_a_plain_harness_error_naming_key_and_allowed_values():
    with pytest.raises(HarnessError, match=r"^mac.retry_limit: 32 is out of range; expected "
                                           r"an integer in \[1, 31\]$") as err:
        wireless.RETRY_LIMIT.validate(32, "mac.retry_limit")
    assert not isinstance(err.value, SchemaError)  # the schema would place it in a file
    assert wireless.RETRY_LIMIT.validate(7.0, "r") == 7
    assert wireless.RETRY_LIMIT.accepts(31) and not wireless.RETRY_LIMIT.accepts(32)
    assert not ParamSpec("b", "bool").accepts(1)


def test_the_kernel_refuses_what_the_rule_refuses():
    assert wireless.retry_lines("phy0", 31) == ["iw phy phy0 set retry short 31 long 31"]
    with pytest.raises(HarnessError, match=r"retry_limit: 32 is out of range"):
        wireless.retry_lines("phy0", 32)
    assert wireless.channel_freq(14) == 2484 and wireless.channel_freq(1) == 2412
    with pytest.raises(HarnessError, match=r"channel: 0 is out of range"):
        wireless.channel_freq(0)


def test_a_builder_checks_its_arguments_by_its_declarations():
    from topologies.chain import BUILDER
    assert BUILDER.argument("hops", 64.0) == 64
    with pytest.raises(HarnessError, match=r"^hops: 65 is out of range"):
        BUILDER.argument("hops", 65)
    with pytest.raises(HarnessError, match=r"^topology.spacing: null is not allowed"):
        BUILDER.argument("spacing", None, "topology.spacing")  # null: the preset's, resolved before
    assert BUILDER.argument("retry_limit", None, null_ok=True) is None
    with pytest.raises(ValueError, match="declares no parameter 'nodes'"):
        BUILDER.argument("nodes", 3)
