"""The medium's link table (``mediumsim --links``, core/links.c) against the medium itself:
its delivery ratios are the probability the core draws for a frame alone on the air, so
broadcast probes through the simulated medium must deliver the same share; and static
shadowing keyed by radio names and a seed of its own is the same whatever the order, the
number of radios or the run's seed."""
from __future__ import annotations

import json
import math
import subprocess
from typing import List, Tuple

import pytest

#: Receivers on a line from a sender at x = 0: mean SNR from far above to below the thresholds.
DISTANCES = (150, 230, 260, 280, 300, 330)


def link_table(mediumsim_bin, tmp_path, conf: str, *args: str) -> dict:
    path = tmp_path / "links.conf"
    path.write_text(conf)
    proc = subprocess.run([str(mediumsim_bin), str(path), "--links", *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def line_config(fading: str) -> str:
    radios = "".join(f"radio 02:00:00:00:01:{i:02x} name r{i} pos {d} 0 2\n"
                     for i, d in enumerate(DISTANCES, start=1))
    return ("seed 11\npropagation log_distance exponent 3\n" + fading + "\n"
            "defaults phy b txpower 18 gain 2 rx_sensitivity -95\n"
            "radio 02:00:00:00:00:01 name s pos 0 0 2\n" + radios)


def probes_against_table(sim, mediumsim_bin, tmp_path, conf: str, rate: float, n: int = 400
                         ) -> List[Tuple[str, float, float, float]]:
    """``n`` broadcast frames of 1536 bytes from s, far apart in time: per receiver, the
    table's delivery at ``rate``, the share decoded, and the tolerance (4 standard errors of
    a binomial, plus 0.01)."""
    table = link_table(mediumsim_bin, tmp_path, conf, "--len", "1536")
    want = {l["rx"]: l["delivery"][f"{rate:g}"] for l in table["links"] if l["tx"] == "s"}
    assert want, "the table lists no link from s: nothing to compare"
    scen = "duration 9\n" + "".join(f"frame {1000 + k * 20000} s broadcast len 1536 rate {rate:g}\n"
                                    for k in range(n))
    out = sim(conf, scen)
    got = {name: 0 for name in want}
    for frame in out["frames"]:
        for rx in frame["received_by"]:
            got[rx["radio"]] += 1
    return [(name, p, got[name] / n, 4 * math.sqrt(max(p * (1 - p), 1e-4) / n) + 0.01)
            for name, p in want.items()]


@pytest.mark.parametrize("fading", ["fading none", "fading lognormal sigma 3", "fading rayleigh"])
@pytest.mark.parametrize("rate", [2, 11])
def test_delivery_matches_broadcast_probes(sim, mediumsim_bin, tmp_path, fading, rate):
    """400 broadcast frames of 1536 bytes, far apart in time: each receiver decodes the share
    the table states (within 4 standard errors of a binomial, plus 0.01)."""
    conf = line_config(fading)
    rows = probes_against_table(sim, mediumsim_bin, tmp_path, conf, rate)
    for name, p, share, tol in rows:
        print(f"{fading}, {rate} Mbit/s, {name}: table {p:.3f}, probes {share:.3f} (tol {tol:.3f})")
    assert any(0.05 < p < 0.95 for _, p, _, _ in rows) or fading == "fading none", \
        "the line should cross the transition region"
    for name, p, share, tol in rows:
        assert abs(share - p) <= tol, f"{name}: table {p:.3f}, probes {share:.3f}"


def test_link_table_lists_thresholds_and_senses_what_it_decodes(mediumsim_bin, tmp_path):
    table = link_table(mediumsim_bin, tmp_path, line_config("fading lognormal sigma 2"))
    radio = table["radios"][0]
    assert radio["rx_sensitivity_dbm"] == -95 and radio["cs_threshold_dbm"] == -95
    assert abs(radio["noise_dbm"] - (-174 + 10 * math.log10(22e6) + 6)) < 1e-3
    assert table["links"], "no link listed"
    for link in table["links"]:
        assert set(link["delivery"]) == {"1", "2", "5.5", "11"}
        # a frame can only be decoded if it was locked onto, and lock = sense here
        assert link["delivery"]["1"] <= link["sensed"] + 1e-9
        assert link["snr_db"] == pytest.approx(link["mean_dbm"] - radio["noise_dbm"], abs=1e-3)


@pytest.mark.parametrize("fading", ["fading lognormal sigma 3", "fading rayleigh"])
def test_a_coherence_time_leaves_the_link_table_as_it_is(mediumsim_bin, tmp_path, fading):
    """Slow fading changes when frames are lost, not how many per attempt: the same table (so
    a campus's routes and path check stay valid under medium.fading_coherence)."""
    fast = link_table(mediumsim_bin, tmp_path, line_config(fading))
    slow = link_table(mediumsim_bin, tmp_path, line_config(fading + " coherence 50"))
    assert fast == slow and any(0.05 < l["delivery"]["11"] < 0.95 for l in fast["links"])


def shadowing_config(order, seed: int, shadow_seed: int) -> str:
    pos = {"a": (0, 0), "b": (40, 0), "c": (0, 40), "d": (40, 40)}
    radios = "".join(f"radio 02:00:00:00:00:{i:02x} name {n} pos {pos[n][0]} {pos[n][1]} 1\n"
                     for i, n in enumerate(order, start=1))
    return (f"seed {seed}\npropagation log_distance exponent 3\nshadowing 6 seed {shadow_seed}\n"
            "rx_sensitivity -200\n" + radios)


def test_shadowing_seed_and_names_fix_the_draw(mediumsim_bin, tmp_path):
    """With ``shadowing SIGMA seed N`` a pair's draw depends on N and the two radios' names
    only: not on the run's seed, the order of the radios, or which other radios exist."""
    def powers(order, seed, shadow_seed):
        table = link_table(mediumsim_bin, tmp_path, shadowing_config(order, seed, shadow_seed))
        return {(l["tx"], l["rx"]): l["mean_dbm"] for l in table["links"]}

    base = powers("abcd", 1, 5)
    assert powers("dcba", 2, 5) == base
    subset = powers("db", 3, 5)
    assert subset == {k: v for k, v in base.items() if set(k) <= {"b", "d"}}
    other = powers("abcd", 1, 6)
    assert other != base
    assert base[("a", "b")] == base[("b", "a")]
    print({k: round(v, 2) for k, v in base.items()})


def test_a_rate_loss_is_that_much_less_snr_at_that_rate_alone(mediumsim_bin, tmp_path):
    """``rate_loss 5.5 4`` costs a 5.5 Mbit/s payload what 4 dB more receiver noise
    costs it, and leaves the other rates as they were: a receiver worse at one rate only."""
    base = line_config("fading lognormal sigma 3")
    lossy = link_table(mediumsim_bin, tmp_path, base.replace("fading", "rate_loss 5.5 4\nfading"))
    plain = link_table(mediumsim_bin, tmp_path, base)
    noisy = link_table(mediumsim_bin, tmp_path, base.replace("fading", "noise_figure 10\nfading"))
    by = {name: {(l["tx"], l["rx"]): l["delivery"] for l in t["links"]}
          for name, t in (("lossy", lossy), ("plain", plain), ("noisy", noisy))}
    moved = 0
    for key, got in by["lossy"].items():
        # the same but for the 1 Mbit/s PLCP header, which the noise also reaches: nothing
        # where the payload survives (its threshold is 4.5 dB lower)
        assert got["5.5"] == pytest.approx(by["noisy"][key]["5.5"], abs=2e-3), key
        for rate in ("1", "2", "11"):
            assert got[rate] == pytest.approx(by["plain"][key][rate], abs=1e-12), (key, rate)
        moved += by["plain"][key]["5.5"] - got["5.5"] > 0.05
    assert moved, "the line should cross 5.5 Mbit/s's transition region"


def test_a_rate_loss_reaches_frames_on_the_air(sim, mediumsim_bin, tmp_path):
    """The live medium (phy.c) applies the loss the table (links.c) states: broadcast probes
    at 5.5 Mbit/s with ``rate_loss 5.5 4`` arrive as the lossy table says."""
    conf = line_config("fading none").replace("fading none", "rate_loss 5.5 4")
    for name, p, share, tol in probes_against_table(sim, mediumsim_bin, tmp_path, conf, 5.5):
        print(f"rate_loss 5.5 4, {name}: table {p:.3f}, probes {share:.3f}")
        assert abs(share - p) <= tol, name


def test_rate_loss_errors_name_the_key(config_error):
    for text, expect in [("rate_loss 7 3\n", "'7' is not a rate"),
                         ("rate_loss 5.5\n", "expected rate_loss MBITS DB"),
                         ("rate_loss 5.5 99\n", "loss must be -20..40 dB, got '99'")]:
        assert ":1: rate_loss: " + expect in config_error(text)
