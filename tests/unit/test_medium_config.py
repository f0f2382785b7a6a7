"""harness.medium.daemon: medium keys validated, and mediumd's config generated from a radio table.

The generated text is also fed to the real mediumd parser (the daemon binary, on a host
without hwsim it gets past the config and stops at the missing MAC80211_HWSIM family: exit 1,
whereas a config error is exit 2), so these tests break if the two formats drift apart.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.experiment.catalog import MEDIUM
from harness.medium.config import config_text
from harness.medium.counters import link_stats, radio_stats, stats_delta, summary
from harness.medium.spec import LinkOverride, MediumSpec, spec_of
from harness.net.topo import Topology


def row(node, index, mac, pos, *, phy="g", rate=None, rts=None, txpower=None, retry=None,
        freq=2412):
    return {"name": f"hx-0001-{node}-{index}", "node": node, "index": index, "mac": mac,
            "phy": f"hx-0001-{node}-{index}", "intf": "wlan0", "hwsim_id": 1,
            "position": pos, "mode": "ibss", "channel": 1, "freq": freq, "phy_mode": phy,
            "rate": rate, "rts": rts, "txpower_dbm": txpower, "retry_limit": retry}


RADIOS = [
    row("sta1", 0, "02:68:78:00:00:00", (0.0, 0.0, 0.0), rate=54.0, retry=3, txpower=18),
    row("sta2", 0, "02:68:78:00:01:00", (200.0, 0.0, 1.5), rate=54.0, rts=True),
    row("sta3", 0, "02:68:78:00:02:00", (400.0, 0.0, 0.0), phy="b", rate=11.0, rts=500),
]


# -- MediumSpec.from_dict ------------------------------------------------------------------
def test_defaults_and_catalog_keys_are_accepted():
    spec = MediumSpec.from_dict({})
    assert spec.enabled and spec.propagation == "two_ray" and spec.links == []
    # every key an experiment file may set (catalog.MEDIUM) is a MediumSpec key
    assert {p.name for p in MEDIUM} <= set(MediumSpec.keys())
    full = MediumSpec.from_dict({"enabled": True, "propagation": "log_distance", "exponent": 3.5,
                                 "height": 1.5, "tx_range": 250, "cs_range": 550,
                                 "capture_threshold": 10, "queue": 50, "shadowing": 4,
                                 "fading": "lognormal", "fading_sigma": 2.0, "pcap": True})
    assert full.exponent == 3.5 and full.queue == 50 and full.pcap is True


@pytest.mark.parametrize("data, message", [
    ({"propagtion": "two_ray"}, "medium.propagtion is unknown: allowed enabled, propagation"),
    ({"propagation": "cost231"}, "medium.propagation 'cost231' is invalid: allowed free_space, "
                                 "log_distance, two_ray, indoor"),
    ({"fading": "rician"}, "allowed none, rayleigh, lognormal"),
    ({"queue": 2.5}, "medium.queue 2.5 is invalid: allowed an integer in [0, 255]"),
    ({"queue": 300}, "allowed an integer in [0, 255]"),
    ({"queue": True}, "medium.queue True is invalid: allowed an integer in [0, 255]"),
    ({"tx_range": -1}, "medium.tx_range -1 is invalid: allowed a number > 0"),
    ({"tx_range": "far"}, "medium.tx_range 'far' is invalid"),
    ({"exponent": 0.5}, "medium.exponent 0.5 is invalid: allowed a number in [1.0, 8.0]"),
    ({"enabled": "yes"}, "medium.enabled 'yes' is invalid: allowed true or false"),
    ({"tx_range": 300, "cs_range": 200}, "allowed cs_range >= tx_range"),
    ({"fading": "lognormal"}, "medium.fading_sigma is required"),
    ({"fading_coherence": 50}, "medium.fading_coherence needs fading: allowed with fading "
                               "rayleigh or lognormal (got none)"),
    ({"fading": "rayleigh", "fading_coherence": -1}, "allowed a number >= 0 (ms"),
    ({"rts_flags": "never"}, "medium.rts_flags 'never' is invalid: allowed per_entry, "
                             "first_entry"),
    ({"retry_series": "two"}, "medium.retry_series 'two' is invalid: allowed kernel, single"),
    ({"cck_interference_weight": 0}, "medium.cck_interference_weight 0 is invalid: allowed a "
                                      "number > 0"),
    ({"rate_loss": {7: 3}}, "medium.rate_loss.7 is invalid: allowed rates 1, 2, 5.5, 6, 9, 11"),
    ({"rate_loss": {5.5: 99}}, "medium.rate_loss.5.5 99 is invalid: allowed a number in "
                              "[-20.0, 40.0]"),
    ({"rate_loss": 3}, "medium.rate_loss 3 is invalid: allowed a mapping rate"),
    ({"basic_rates": {"n": [6]}}, "medium.basic_rates.n is invalid: allowed b, g"),
    ({"basic_rates": {"b": [6]}}, "medium.basic_rates.b rate 6 is invalid: allowed 1, 2, 5.5, 11"),
    ({"links": [{"a": "sta1", "b": "sta2", "lose": 3}]},
     "medium.links[0].lose is unknown: allowed a, b, loss, snr, none, model, per, oneway"),
    ({"links": [{"a": "sta1", "b": "sta2", "loss": 80, "none": True}]}, "at most one of"),
    ({"links": [{"a": "sta1", "b": "sta2"}]}, "nothing to override"),
    ({"links": [{"a": "sta1", "b": "sta2", "per": 1.5}]}, "medium.links[0].per 1.5 is invalid"),
    ({"links": [{"a": "sta1", "none": True}]}, "medium.links[0].b is required"),
    ({"walls": [[0, 0, 1]]}, "medium.walls[0]"),
    ({"walls": [[0, 0, 10, 0]]}, "need propagation: indoor"),
    ({"log_level": "loud"}, "allowed error, warn, info, debug"),
    ({"queues": [20]}, "medium.queues [20] is invalid: allowed a mapping node name -> frames"),
    ({"queues": {"ap1": 256}}, "medium.queues.ap1 256 is invalid: allowed an integer in "
                              "[0, 255]"),
])
def test_bad_keys_name_the_key_and_the_allowed_values(data, message):
    with pytest.raises(HarnessError) as err:
        MediumSpec.from_dict(data)
    assert message in str(err.value)


def test_to_dict_round_trips():
    spec = MediumSpec.from_dict({"tx_range": 250, "cs_range": 550, "basic_rates": {"g": [24, 6, 12]},
                                 "links": [{"a": "sta1", "b": "sta3", "none": True},
                                           {"a": "sta1", "b": "sta2", "per": 0.5, "oneway": True}],
                                 "propagation": "indoor", "walls": [[0, 5, 10, 5, 7]]})
    again = MediumSpec.from_dict(spec.to_dict())
    assert again == spec
    assert spec.basic_rates == {"g": (6.0, 12.0, 24.0)}


def test_spec_of_what_network_medium_means():
    assert spec_of("none") is None
    assert spec_of(None) == MediumSpec()
    assert spec_of({"enabled": False}) is None
    spec = MediumSpec(tx_range=100)
    assert spec_of(spec) is spec
    with pytest.raises(HarnessError, match="allowed 'none', 'default'"):
        spec_of("wmediumd")


# -- config_text ---------------------------------------------------------------------------
def test_config_carries_every_radio_setting():
    spec = MediumSpec.from_dict({"tx_range": 250, "cs_range": 550, "queue": 25,
                                 "capture_threshold": 10, "height": 1.5})
    text = config_text(RADIOS, spec, seed=7)
    lines = [l.split("#")[0].strip() for l in text.splitlines() if l.split("#")[0].strip()]
    assert lines[0] == "seed 7"
    assert lines[1] == "propagation two_ray height 1.5"
    assert "capture_threshold 10" in lines
    assert "defaults tx_range 250 cs_range 550 queue 25" in lines
    radios = [l for l in lines if l.startswith("radio ")]
    assert radios == [
        "radio 02:68:78:00:00:00 name sta1 pos 0 0 0 phy g freq 2412 basic_rates 6,54 "
        "txpower 18 retry_short 3 retry_long 3",
        "radio 02:68:78:00:01:00 name sta2 pos 200 0 1.5 phy g freq 2412 basic_rates 6,54",
        "radio 02:68:78:00:02:00 name sta3 pos 400 0 0 phy b freq 2412 basic_rates 1,2,5.5,11",
    ]
    # rate and RTS are per frame (kernel rate table, RTS flag): recorded as comments only
    assert "rate 54 rts 0" in text and "rts 500" in text


def test_seed_basic_rates_links_shadowing_fading():
    spec = MediumSpec.from_dict({
        "seed": 99, "basic_rates": {"g": [6, 12, 24], "b": [1, 2]}, "shadowing": 3,
        "fading": "rayleigh", "propagation": "log_distance", "exponent": 3,
        "links": [{"a": "sta1", "b": "sta3", "none": True},
                  {"a": "sta1", "b": "02:68:78:00:01:00", "loss": 80, "per": 0.25, "oneway": True}]})
    text = config_text(RADIOS, spec, seed=1)
    assert text.splitlines()[1] == "seed 99"
    assert "propagation log_distance exponent 3\n" in text
    assert "shadowing 3\nfading rayleigh\n" in text
    slow = MediumSpec.from_dict({"fading": "lognormal", "fading_sigma": 5, "fading_coherence": 50})
    assert "fading lognormal sigma 5 coherence 50\n" in config_text(RADIOS, slow, seed=1)
    harsh = MediumSpec.from_dict({"cck_interference_weight": 16, "rts_flags": "first_entry"})
    assert "interference_weight cck 16\n" in config_text(RADIOS, harsh, seed=1)
    assert "rts_flags first_entry\n" in config_text(RADIOS, harsh, seed=1)
    madwifi = MediumSpec.from_dict({"retry_series": "single"})
    assert "retry_series single\n" in config_text(RADIOS, madwifi, seed=1)
    reset = MediumSpec.from_dict({"nav_reset": True})
    assert "nav_reset on\n" in config_text(RADIOS, reset, seed=1)
    assert "nav_reset off\n" in config_text(RADIOS, MediumSpec.from_dict({"nav_reset": False}),
                                             seed=1)
    worse = MediumSpec.from_dict({"rate_loss": {11: 2.7, 5.5: 4.6}})
    assert "rate_loss 5.5 4.6\nrate_loss 11 2.7\n" in config_text(RADIOS, worse, seed=1)
    assert "rate_loss" not in text
    assert "rts_flags" not in text
    assert "retry_series" not in text
    assert "nav_reset" not in text
    assert "interference_weight" not in text
    assert "basic_rates 6,12,24" in text and "basic_rates 1,2 " in text
    assert "link 02:68:78:00:00:00 02:68:78:00:02:00 none\n" in text
    assert "link 02:68:78:00:00:00 02:68:78:00:01:00 loss 80 per 0.25 oneway\n" in text


def test_unknown_link_end_names_the_stations():
    spec = MediumSpec.from_dict({"links": [{"a": "sta1", "b": "sta9", "none": True}]})
    with pytest.raises(HarnessError, match=r"links\[0\].b 'sta9' is not a station .*allowed sta1, sta2, sta3"):
        config_text(RADIOS, spec)


def test_a_node_can_have_a_queue_of_its_own():
    spec = MediumSpec.from_dict({"queue": 100, "queues": {"sta2": 20}})
    lines = config_text(RADIOS, spec).splitlines()
    assert "defaults queue 100" in lines
    sta2 = [l for l in lines if " name sta2" in l]
    assert len(sta2) == 1 and " queue 20 " in sta2[0]
    assert not any(" queue " in l for l in lines if l.startswith("radio") and l not in sta2)
    with pytest.raises(HarnessError, match=r"medium.queues.ap9 is not a node with a radio.*"
                                           r"allowed sta1, sta2, sta3"):
        config_text(RADIOS, MediumSpec.from_dict({"queues": {"ap9": 20}}))


def test_second_radio_of_a_node_gets_its_own_name():
    radios = RADIOS[:1] + [row("sta1", 1, "02:68:78:00:00:01", (0.0, 0.0, 0.0))]
    spec = MediumSpec(links=[LinkOverride("sta1-1", "sta1", "none")])
    text = config_text(radios, spec)
    assert "name sta1-1 " in text
    assert "link 02:68:78:00:00:01 02:68:78:00:00:00 none\n" in text
    with pytest.raises(HarnessError, match="cannot link to itself"):
        config_text(radios, MediumSpec(links=[LinkOverride("sta1-1", "sta1-1", "none")]))


def test_no_radios_is_an_error():
    with pytest.raises(HarnessError, match="at least one radio"):
        config_text([], MediumSpec())


class FakeNetwork:
    """What config_text reads from a Network: only ``radio_table()``."""

    def __init__(self, rows):
        self.rows = rows

    def radio_table(self):
        return self.rows


def test_network_source_equals_table_source():
    assert config_text(FakeNetwork(RADIOS), MediumSpec()) == config_text(RADIOS, MediumSpec())


def test_topology_settings_reach_the_config():
    """Station settings as a Topology stores them end up on the radio lines."""
    topo = Topology("t")
    topo.add_station("a", (0, 0), rate=2, phy="b", retry_limit=2, txpower_dbm=10)
    spec = topo.stations["a"]
    text = config_text([row("a", 0, "02:68:78:00:00:00", spec.position, phy=spec.phy,
                            rate=spec.rate, retry=spec.retry_limit, txpower=spec.txpower_dbm)],
                       MediumSpec())
    assert "phy b freq 2412 basic_rates 1,2,5.5,11 txpower 10 retry_short 2 retry_long 2" in text


# -- the real parser reads what we write -----------------------------------------------------
@pytest.fixture(scope="module")
def mediumd_binary() -> Path:
    if Path("/sys/module/mac80211_hwsim").exists():
        pytest.skip("hwsim is loaded here: mediumd would register instead of stopping")
    if shutil.which("make") is None or shutil.which("gcc") is None:
        pytest.skip("building mediumd needs gcc and make")
    from harness.medium.build import ensure_mediumd
    return ensure_mediumd()  # a build that fails with the tools at hand is a failure


@pytest.mark.parametrize("spec", [
    MediumSpec(),
    MediumSpec.from_dict({"tx_range": 250, "cs_range": 550, "queue": 25, "queues": {"sta2": 200},
                          "capture_threshold": 10,
                          "shadowing": 4, "fading": "lognormal", "fading_sigma": 2, "seed": 3,
                          "fading_coherence": 50,
                          "cck_interference_weight": 16, "rts_flags": "first_entry",
                          "retry_series": "single",
                          "basic_rates": {"g": [6, 12, 24], "b": [1, 2]}, "short_slot": False,
                          "links": [{"a": "sta1", "b": "sta3", "none": True},
                                    {"a": "sta2", "b": "sta3", "snr": 20, "per": 0.1}]}),
    MediumSpec.from_dict({"propagation": "indoor", "walls": [[0, 5, 10, 5], [5, 0, 5, 10, 12]],
                          "wall_loss": 5, "floor_loss": 15, "floor_height": 3, "exponent": 3}),
])
def test_mediumd_accepts_the_generated_config(tmp_path, mediumd_binary, spec):
    conf = tmp_path / "medium.conf"
    conf.write_text(config_text(RADIOS, spec, seed=1))
    proc = subprocess.run([str(mediumd_binary), "-c", str(conf)], capture_output=True,
                          text=True, timeout=20)
    assert "config error" not in proc.stderr, conf.read_text() + proc.stderr
    assert proc.returncode == 1 and "MAC80211_HWSIM family not found" in proc.stderr, proc.stderr


def test_mediumd_rejects_what_we_would_not_write(tmp_path, mediumd_binary):
    """The check above can fail: a config with a bad key is exit 2."""
    conf = tmp_path / "medium.conf"
    conf.write_text(config_text(RADIOS, MediumSpec()) + "radio 02:00:00:00:00:09 warp 9\n")
    proc = subprocess.run([str(mediumd_binary), "-c", str(conf)], capture_output=True,
                          text=True, timeout=20)
    assert proc.returncode == 2 and "warp" in proc.stderr


# -- reading counters ----------------------------------------------------------------------
STATS = {
    "lag_us": {"count": 10, "p50": 40, "p90": 80, "p99": 200, "max": 900, "mean": 50},
    "radios": [{"mac": "02:68:78:00:00:00", "node": "sta1", "busy_fraction": 0.8,
                "queue_drops": 2, "tx_frames": 100, "acked": 95, "retry_drops": 5}],
    "links": [{"tx": "02:68:78:00:00:00", "rx": "02:68:78:00:01:00", "tx_node": "sta1",
               "rx_node": "sta2", "attempts": 130, "successes": 95, "collisions": 20,
               "retry_drops": 5, "airtime_us": 1000, "delivered": 95}],
}


def test_summary_and_lookups():
    s = summary(STATS)
    assert s["lag_us"]["p99"] == 200
    assert s["radios"]["sta1"]["busy_fraction"] == 0.8
    assert s["links"]["sta1>sta2"]["collisions"] == 20
    assert link_stats(STATS, "sta1", "sta2")["attempts"] == 130
    assert link_stats(STATS, "sta2", "sta1")["attempts"] == 0
    assert radio_stats(STATS, "02:68:78:00:00:00")["queue_drops"] == 2
    with pytest.raises(HarnessError, match="no radio 'sta9'"):
        radio_stats(STATS, "sta9")
    assert summary(None) == {}


def test_stats_delta_gives_interval_counters_and_busy_fraction():
    before = {"uptime_s": 10.0, "frames": {"in": 100},
              "radios": [{"mac": "m1", "tx_frames": 10, "busy_fraction": 0.1}],
              "links": [{"tx": "m1", "rx": "m2", "attempts": 5, "successes": 5}]}
    after = {"uptime_s": 20.0, "frames": {"in": 300}, "lag_us": {"p99": 5},
             "radios": [{"mac": "m1", "tx_frames": 60, "busy_fraction": 0.3}],
             "links": [{"tx": "m1", "rx": "m2", "attempts": 25, "successes": 20},
                       {"tx": "m2", "rx": "m1", "attempts": 3, "successes": 3}]}
    d = stats_delta(before, after)
    assert d["interval_s"] == 10.0 and d["frames"]["in"] == 200
    assert d["radios"][0]["tx_frames"] == 50
    assert d["radios"][0]["busy_fraction"] == pytest.approx((0.3 * 20 - 0.1 * 10) / 10)
    assert d["links"][0]["attempts"] == 20 and d["links"][1]["attempts"] == 3


def test_retry_counters_in_the_summary_and_the_interval():
    radio = {"mac": "m1", "node": "sta1", "retry_drops": 3, "limit_drops": 2, "table_drops": 1,
             "retry_short": 7, "retry_long": 7, "tries": [90, 8, 2]}
    assert summary({"radios": [radio]})["radios"]["sta1"] == {
        k: v for k, v in radio.items() if k not in ("mac", "node")}
    later = dict(radio, retry_drops=5, limit_drops=4, tries=[100, 8, 2, 1])
    d = stats_delta({"radios": [radio]}, {"radios": [later]})["radios"][0]
    assert (d["retry_drops"], d["limit_drops"], d["table_drops"]) == (2, 2, 0)
    assert d["tries"] == [10, 0, 0, 1]
    assert stats_delta({"radios": [radio]}, {"radios": [radio]})["radios"][0]["tries"] == []


def test_launch_fails_loudly_when_mediumd_exits(tmp_path, mediumd_binary):
    """No hwsim here: the daemon exits at once; the error carries its own message and the
    files stay for inspection."""
    from harness.medium.daemon import launch
    spec = MediumSpec(run_dir=str(tmp_path / "run"))
    with pytest.raises(HarnessError) as err:
        launch(mediumd_binary, config_text(RADIOS, spec), spec, tag="abcd")
    text = str(err.value)
    assert "mediumd exited at start (code 1)" in text and "MAC80211_HWSIM family not found" in text
    assert (tmp_path / "run" / "medium.conf").exists()


def test_stats_delta_prefers_busy_time():
    before = {"uptime_s": 10.0, "radios": [{"mac": "m1", "busy_us": 1e6, "busy_fraction": 0.01}]}
    after = {"uptime_s": 14.0, "radios": [{"mac": "m1", "busy_us": 4e6, "busy_fraction": 0.02}]}
    assert stats_delta(before, after)["radios"][0]["busy_fraction"] == pytest.approx(0.75)


def test_annotate_derives_busy_time_from_fraction_and_uptime():
    """mediumd's busy_fraction is over its run: x uptime = busy time, which subtracts."""
    from harness.medium.daemon import MediumHandle
    h = MediumHandle.__new__(MediumHandle)
    h.names = {"02:68:78:00:00:00": "sta1"}
    stats = {"uptime_s": 20.0, "radios": [{"mac": "02:68:78:00:00:00", "busy_fraction": 0.1}],
             "links": []}
    radio = h.annotate(stats, mono_s=100.0)["radios"][0]
    assert radio["node"] == "sta1"
    assert radio["busy_us"] == pytest.approx(2e6)


def test_receiver_goodput_comes_from_the_server_report():
    """A UDP iperf3 client's own intervals count what it sent; goodput is what the server got."""
    from types import SimpleNamespace

    from harness.traffic.iperf import receiver_mbps
    server = {"intervals": [{"sum": {"start": 0, "end": 1, "bytes": 9_000_000, "omitted": True}}]
              + [{"sum": {"start": i, "end": i + 1, "bytes": 125_000}} for i in range(1, 6)]
              + [{"sum": {"start": 6, "end": 6.1, "bytes": 100}}]}
    result = SimpleNamespace(raw={"server_output_json": server})
    assert receiver_mbps(result) == pytest.approx(1.0)
    # text-mode server: the client's end.sum_received (what harness.traffic.iperf calls throughput)
    assert receiver_mbps(SimpleNamespace(raw={}, protocol="UDP", throughput_bps=2e6)) == 2.0
    with pytest.raises(ValueError, match="no receiver-side report"):
        receiver_mbps(SimpleNamespace(raw={}))


def test_starved_regime_is_named():
    from harness.cli.bench import load_bench
    fidelity = load_bench("medium_fidelity")  # bench/medium_fidelity.py
    cpu_bound, starved_reason = fidelity.cpu_bound, fidelity.starved_reason
    c = fidelity.udp_check("g", 54)
    c.medium = {"guest_cpu_busy": 0.9, "mediumd_cpu_share": 0.7, "busy_fraction": {"sta1": 0.4},
                "lag_us": {"p50": 700}}
    assert cpu_bound(c) and starved_reason(c).startswith("CPU-bound: the machine was 90% busy")
    c.medium.update(guest_cpu_busy=0.5, lag_us={"p50": 4000})
    assert starved_reason(c).startswith("host-starved: median delivery lag 4.0 ms")
    c.medium.update(lag_us={"p50": 600})
    assert not cpu_bound(c)


def _reading(t: float, queues: dict, successes: dict) -> dict:
    """One medium stats reading: queue length per sender (limit 50), successes per link."""
    return {"read_monotonic_s": t,
            "radios": [{"node": n, "queue_len": q, "queue_limit": 50} for n, q in queues.items()],
            "links": [{"tx_node": tx, "rx_node": rx, "successes": n}
                      for (tx, rx), n in successes.items()]}


def test_backlogged_goodput_counts_only_intervals_where_every_sender_is_saturated():
    """c is still shaking hands (queue 1) for the first second while a has the air alone:
    those frames must not count as the pair's throughput."""
    from harness.medium.counters import backlogged_goodput_mbps
    links = [("a", "b"), ("c", "b")]
    readings = [_reading(0.0, {"a": 50, "c": 0}, {("a", "b"): 0, ("c", "b"): 0}),
                _reading(1.0, {"a": 50, "c": 1}, {("a", "b"): 150, ("c", "b"): 0}),
                _reading(2.0, {"a": 49, "c": 50}, {("a", "b"): 160, ("c", "b"): 5}),
                _reading(3.0, {"a": 50, "c": 40}, {("a", "b"): 170, ("c", "b"): 15}),
                _reading(4.0, {"a": 10, "c": 50}, {("a", "b"): 300, ("c", "b"): 20})]
    mbps, seconds = backlogged_goodput_mbps(readings, links, payload_bytes=1000)
    # only 2.0 -> 3.0 has both saturated at both ends: 10 + 10 frames of 1000 bytes in 1 s
    assert seconds == pytest.approx(1.0)
    assert mbps == pytest.approx(20 * 8000 / 1e6)


def test_backlogged_goodput_is_zero_when_the_senders_never_overlap():
    from harness.medium.counters import backlogged_goodput_mbps
    readings = [_reading(t, {"a": 50, "c": 0}, {("a", "b"): 100 * t}) for t in range(4)]
    assert backlogged_goodput_mbps(readings, [("a", "b"), ("c", "b")], 1472) == (0.0, 0.0)
    with pytest.raises(ValueError, match="no radio of node 'x'"):
        backlogged_goodput_mbps(readings, [("x", "b")], 1472)


def test_together_goodput_counts_only_intervals_inside_a_spell_where_every_sender_got_through():
    from harness.medium.counters import together_goodput_mbps

    def sample(t, a, c):
        return {"uptime_s": t, "links": [{"tx_node": "a", "rx_node": "b", "successes": a},
                                         {"tx_node": "c", "rx_node": "b", "successes": c}]}
    # a sends alone for 2 s (c still connecting), then both for 4 s (the first and last of
    # which are the spell's edges, filled only in part), then c alone for 1 s
    samples = [sample(0, 0, 0), sample(1, 100, 0), sample(2, 200, 0), sample(3, 250, 40),
               sample(4, 350, 120), sample(5, 450, 200), sample(6, 460, 210),
               sample(7, 460, 290)]
    mbps, seconds = together_goodput_mbps(samples, [("a", "b"), ("c", "b")],
                                          [("a", "b"), ("c", "b")], 1000)
    assert seconds == 2.0
    assert mbps == (100 + 80 + 100 + 80) * 1000 * 8 / 2.0 / 1e6
    # a spell of two intervals has no inside
    assert together_goodput_mbps(samples[:5], [("a", "b"), ("c", "b")], [("a", "b")], 1000) == (0.0, 0.0)
    assert together_goodput_mbps(samples[:3], [("a", "b"), ("c", "b")], [("a", "b")], 1000) == (0.0, 0.0)


def test_together_goodput_is_only_for_last_hops_no_flows_acks_cross():
    from harness.medium.counters import last_hops_carry_only_data
    # lab 2: two senders towards one receiver; the ACKs go b > a and b > c, not counted
    assert last_hops_carry_only_data([[("a", "b")], [("c", "b")]])
    # a chain: the flow's own ACKs run backwards over links that are not its last hop
    assert last_hops_carry_only_data([[("s1", "s2"), ("s2", "s3")], [("s4", "s3")]])
    # lab 4: download ap > client and upload client > ap: each last hop carries the other's ACKs
    assert not last_hops_carry_only_data([[("ap1", "client")], [("client", "ap1")]])
    # opposite flows over a chain: the far flow's ACKs cross the near flow's last hop
    assert not last_hops_carry_only_data([[("s1", "s2"), ("s2", "s3")], [("s3", "s2"), ("s2", "s1")]])
