"""Capture, retry limit and determinism of the medium core."""
import math

import pytest
from conftest import radios

from harness.medium.analytic import delivered_fraction

CAPTURE_DB = 10


def capture_run(sim, margin_db: float, strong_first: bool, pairs: int = 20) -> dict:
    """W (weak) and S (strong) cannot hear each other (link none); R hears W at
    25 dB SNR and S at 25 + margin dB.  Broadcast 1000 B frames at 11 Mbit/s,
    one try each; the second frame starts 100 us into the first."""
    conf = (f"seed 9\ncapture_threshold {CAPTURE_DB}\ndefaults phy b\n" +
            radios([("W", 0, 0), ("S", 1, 0), ("R", 2, 0)]) +
            f"link S W none\nlink W R snr 25\nlink S R snr {25 + margin_db}\n")
    first, second = ("S", "W") if strong_first else ("W", "S")
    scen = "duration 1\n" + "".join(
        f"frame {1000 + 20000 * k} {first} broadcast len 1000 rate 11\n"
        f"frame {1100 + 20000 * k} {second} broadcast len 1000 rate 11\n" for k in range(pairs))
    return sim(conf, scen)


def received(out, src):
    return sum(1 for f in out["frames"] if f["src"] == src and
               any(r["radio"] == "R" for r in f["received_by"]))


@pytest.mark.parametrize("margin", [4, 8, 12, 16])
def test_capture_stronger_later_frame_survives_only_above_threshold(sim, margin):
    out = capture_run(sim, margin, strong_first=False)
    s, w = received(out, "S"), received(out, "W")
    msg = (f"weak frame first, stronger frame {margin} dB above it 100 us later, capture "
           f"threshold {CAPTURE_DB} dB: R decoded {s}/20 strong and {w}/20 weak frames")
    print(msg)
    if margin >= CAPTURE_DB:
        assert s == 20 and w == 0, msg
    else:
        assert s == 0, msg


def test_capture_stronger_first_frame_survives_by_sinr(sim):
    """Locked on the stronger frame, R keeps it when its SINR suffices (12 dB at
    11 Mbit/s); the weaker frame arriving later is only interference."""
    out = capture_run(sim, 12, strong_first=True)
    s, w = received(out, "S"), received(out, "W")
    msg = f"strong frame first (12 dB margin): R decoded {s}/20 strong, {w}/20 weak frames"
    print(msg)
    assert s == 20 and w == 0, msg


def overlap_run(sim, margin_db: float, rate: float, weight: str = "", pairs: int = 20) -> dict:
    """Interference against a payload: R locks onto S's frame (S W-free for 300 us, past the
    192 us DSSS header), then W's frame, margin_db weaker at R, overlaps the rest of it.

        S ----25+margin dB---> R <---25 dB---- W      (S and W cannot hear each other)
    """
    conf = (f"seed 9\ncapture_threshold {CAPTURE_DB}\ndefaults phy b\n{weight}" +
            radios([("W", 0, 0), ("S", 1, 0), ("R", 2, 0)]) +
            f"link S W none\nlink W R snr 25\nlink S R snr {25 + margin_db}\n")
    scen = "duration 1\n" + "".join(
        f"frame {1000 + 20000 * k} S broadcast len 1000 rate {rate:g}\n"
        f"frame {1300 + 20000 * k} W broadcast len 1000 rate 1\n" for k in range(pairs))
    return sim(conf, scen)


@pytest.mark.parametrize("rate,margin,weight,survive", [
    (5.5, 8, "", True),                                   # CCK: G 2, Es/I = 8 S/I
    (5.5, 8, "interference_weight cck 16\n", False),      # G 16: Es/I = S/I
    (5.5, 16, "interference_weight cck 16\n", True),
    (1, 8, "", False),                                    # Barker: G 22, Eb/I = S/I
    (1, 8, "interference_weight cck 16\n", False),        # a CCK weight leaves Barker alone
    (1, 8, "interference_weight barker 1\n", True),       # noise-like: despreading gain 22
])
def test_interference_weight_sets_what_an_overlap_costs_a_payload(sim, rate, margin, weight,
                                                                  survive):
    out = overlap_run(sim, margin, rate, weight)
    s = received(out, "S")
    msg = (f"{rate:g} Mbit/s payload overlapped by a frame {margin} dB weaker"
           f" ({weight.strip() or 'default weights'}): R decoded {s}/20")
    print(msg)
    assert s == (20 if survive else 0), msg


def test_interference_weight_errors_name_the_key(config_error):
    for text, expect in [("interference_weight dsss 3\n", "'dsss' is not barker, cck or ofdm"),
                         ("interference_weight cck\n", "expected interference_weight "
                                                       "barker|cck|ofdm G"),
                         ("interference_weight cck 0\n", "weight must be > 0, got '0'")]:
        assert ":1: interference_weight: " + expect in config_error(text)


@pytest.mark.parametrize("p,attempts", [(0.5, 4), (0.3, 7), (0.7, 2), (0.8, 7)])
def test_retry_limit_delivered_fraction(sim, p, attempts):
    """Link a->b loses each frame with probability p (override `per`, ACKs clean);
    with at most R + 1 = attempts tries, the delivered fraction is 1 - p^(R+1)."""
    conf = (f"seed 17\ndefaults phy b retry_short {attempts}\n" +
            radios([("a", 0, 0), ("b", 10, 0)]) + f"link a b per {p} oneway\n")
    out = sim(conf, "duration 30\nwarmup 0.5\nflow a b payload 500 rate 11\n")
    f = out["flows"][0]
    n = f["finished"]
    frac = f["acked"] / n
    expected = delivered_fraction(p, attempts)
    sigma = math.sqrt(expected * (1 - expected) / n)
    tries = f["attempts"] / n
    expected_tries = (1 - p ** attempts) / (1 - p)
    msg = (f"loss p={p}, max {attempts} attempts: delivered {f['acked']}/{n} = {frac:.4f}, "
           f"expected {expected:.4f} +- {sigma:.4f} (1 sigma); attempts per frame {tries:.4f}, "
           f"expected {expected_tries:.4f}; retry drops {f['retry_drops']}")
    print(msg)
    assert abs(frac - expected) < 4 * sigma + 1e-9, msg
    assert abs(tries - expected_tries) / expected_tries < 0.02, msg
    assert f["delivered"] == f["acked"] or abs(f["delivered"] - f["acked"]) <= 2, msg


def rich_run(sim, seed):
    """Hidden terminals + shadowing + Rayleigh fading: many random draws."""
    conf = ("seed 1\npropagation two_ray\nshadowing 4\nfading rayleigh\n"
            "defaults phy b tx_range 250 cs_range 300\n" +
            radios([("A", 0, 0), ("R", 200, 0), ("C", 400, 0), ("D", 220, 50)]))
    scen = ("duration 3\nwarmup 0\nflow A R payload 1000 rate 11\nflow C R payload 1000 rate 11 rts\n"
            "flow D A payload 300 rate 2\n")
    out = sim(conf, scen, seed=seed)
    for k in ("wall_s", "events_per_s"):
        out.pop(k)
    return out


def test_same_seed_same_fates_different_seed_different_fates(sim):
    a, b, c = rich_run(sim, 42), rich_run(sim, 42), rich_run(sim, 43)
    fa = [(f["acked"], f["attempts"], f["retry_drops"]) for f in a["flows"]]
    fc = [(f["acked"], f["attempts"], f["retry_drops"]) for f in c["flows"]]
    msg = f"seed 42 flows (acked, attempts, drops): {fa}; seed 43: {fc}; events {a['events']} vs {c['events']}"
    print(msg)
    assert a == b, "same seed gave different results: " + msg
    assert fa != fc and a["medium"] != c["medium"], msg


@pytest.mark.parametrize("after_failure", ["eifs", "ack_timeout"])
@pytest.mark.parametrize("phy,rate,p,attempts", [("b", 11, 0.3, 7), ("b", 2, 0.5, 4),
                                                 ("g", 54, 0.6, 4), ("a", 6, 0.2, 7)])
def test_lossy_link_goodput_follows_backoff_doubling(sim, phy, rate, p, attempts, after_failure):
    """Goodput of one sender on a link losing DATA with probability p: checks CW
    doubling, the retry limit and where a failed sender resumes (EIFS after its
    PPDU, or the standard's ACKTimeout) against the analytic expectation."""
    from harness.medium.analytic import lossy_link_goodput_mbps
    conf = (f"seed 23\nafter_failure {after_failure}\ndefaults phy {phy} retry_short {attempts}\n" +
            radios([("a", 0, 0), ("b", 10, 0)]) + f"link a b per {p} oneway\n")
    out = sim(conf, f"duration 20\nwarmup 0.5\nflow a b payload 1000 rate {rate}\n")
    f = out["flows"][0]
    measured = f["goodput_mbps"]
    # judge the timing, not the luck of the loss draws: use the realised loss rate
    p_hat = 1 - f["acked"] / f["attempts"]
    expected = lossy_link_goodput_mbps(phy, rate, 1000, p_hat, attempts, after_failure)
    err = (measured - expected) / expected
    msg = (f"802.11{phy} {rate} Mbit/s, loss {p} (realised {p_hat:.4f}), {attempts} attempts, "
           f"resume after failure: {after_failure}: goodput {measured:.4f} vs analytic "
           f"{expected:.4f} Mbit/s ({err:+.2%}); with p itself "
           f"{lossy_link_goodput_mbps(phy, rate, 1000, p, attempts, after_failure):.4f}")
    print(msg)
    assert abs(err) < 0.02, msg
