"""One source for every rule: a parameter that several keys take (a radio's retry limit, a
window clamp) is declared once, in the layer that knows the fact, and every declaration of a
builder or policy that takes it is that rule (``ParamSpec.variant``), not a copy of it."""
from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.experiment.registry import default_registry
from harness.kernel import tcp, wireless
from harness.params import ParamSpec, SchemaError

#: key in an experiment file -> the rule it must follow
RULES = {"channel": wireless.CHANNEL, "retry_limit": wireless.RETRY_LIMIT,
         "rts_threshold": wireless.RTS_THRESHOLD, "txpower_dbm": wireless.TXPOWER_DBM,
         "antenna_gain_dbi": wireless.ANTENNA_GAIN_DBI, "cwnd_clamp": tcp.WINDOW_CLAMP,
         "rwnd_clamp": tcp.WINDOW_CLAMP}


def declared():
    registry = default_registry()
    for builder in registry.builders.values():
        for spec in builder.params:
            yield f"topology.{spec.name} ({builder.name})", spec
    for policy in registry.policies.values():
        for spec in policy.params:
            yield f"policy.{policy.name}.{spec.name}", spec


def test_every_declaration_of_a_ruled_key_is_the_rule():
    seen, wrong = set(), []
    for where, spec in declared():
        rule = RULES.get(spec.name)
        if rule is None:
            continue
        seen.add(spec.name)
        if (spec.type, spec.min, spec.max, spec.choices) != (rule.type, rule.min, rule.max,
                                                              rule.choices):
            wrong.append(f"{where}: {spec.allowed()} (the rule: {rule.allowed()})")
    assert not wrong, "\n".join(wrong)
    # antenna gains come from a campus file or Python, no experiment key takes one yet
    assert seen == set(RULES) - {"antenna_gain_dbi"}, f"unused: {sorted(set(RULES) - seen)}"


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
