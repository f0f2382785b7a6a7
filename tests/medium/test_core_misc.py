"""Smaller properties of the medium core: config errors, queue refusal,
broadcast, range-derived thresholds, walls, the multi-rate retry table."""
import subprocess

import pytest
from conftest import radios


def frames(out, src=None):
    return [f for f in out["frames"] if src is None or f["src"] == src]


def test_config_error_names_file_line_and_key(mediumsim_bin, tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("seed 1\nradio 02:00:00:00:00:01 name a\nradio 02:00:00:00:00:02 phy q\n")
    scen = tmp_path / "s.txt"
    scen.write_text("duration 1\n")
    proc = subprocess.run([str(mediumsim_bin), str(conf), str(scen)], capture_output=True, text=True)
    print(proc.stderr)
    assert proc.returncode == 2
    assert f"{conf}:3: phy: 'q' is not one of b, g, a" in proc.stderr


def test_unknown_keyword_and_bad_number(config_error):
    for text, expect in [("propagation two_ray hieght 2\n", ":1: hieght: unknown propagation key"),
                         ("radios 1\n", ":1: radios: unknown keyword"),
                         ("radio 02:00:00:00:00:01 txpower ten\n", ":1: txpower: not a number: 'ten'"),
                         ("radio 02:00:00:00:00:01 name a\nlink a b loss 3\n",
                          ":2: link: no radio 'b' defined above this line")]:
        assert expect in config_error(text)


def test_queue_refuses_at_once_with_zero_attempts(sim):
    """Queue limit 3 (+1 in service): of 10 frames offered at once 4 are taken,
    6 are answered immediately as not acknowledged with zero attempts."""
    conf = "seed 1\ndefaults phy b queue 3\n" + radios([("a", 0, 0), ("b", 10, 0)])
    scen = "duration 1\n" + "".join("frame 1000 a b len 500 rate 11\n" for _ in range(10))
    out = sim(conf, scen)
    fr = frames(out)
    refused = [f for f in fr if f["attempts"] == 0]
    acked = [f for f in fr if f["acked"]]
    drops = out["medium"]["radios"][0]["queue_drops"]
    print(f"10 frames offered to a queue of 3 (+1): {len(acked)} acked, {len(refused)} refused "
          f"with 0 attempts, radio queue_drops {drops}")
    assert len(acked) == 4 and len(refused) == 6 and drops == 6
    assert all(f["done"] and not f["acked"] for f in refused)


def test_the_queue_integral_counts_waiting_frames_over_time(sim):
    """4 frames taken at once (queue 3 + 1 in service): 3 wait through the first service, 2
    through the second, 1 through the third, so the integral is 6 services long, each at
    least a frame's airtime and at most its busy time plus DIFS and a full first backoff
    (802.11b: 50 us, 31 slots of 20 us). One frame alone never waits."""
    conf = "seed 1\ndefaults phy b queue 3\n" + radios([("a", 0, 0), ("b", 10, 0)])
    radio = sim(conf, "duration 1\n" + "frame 1000 a b len 500 rate 11\n" * 10)["medium"]["radios"][0]
    alone = sim(conf, "duration 1\nframe 1000 a b len 500 rate 11\n")["medium"]["radios"][0]
    service_min = radio["tx_airtime_ns"] / 4
    service_max = radio["busy_ns"] / 4 + 50_000 + 31 * 20_000
    print(f"queue_wait_ns {radio['queue_wait_ns']}: 6 services of {service_min / 1e3:.0f}.."
          f"{service_max / 1e3:.0f} us")
    assert radio["enqueued"] == 4 and alone["queue_wait_ns"] == 0
    assert 6 * service_min <= radio["queue_wait_ns"] <= 6 * service_max


def test_broadcast_one_try_every_receiver_in_range(sim):
    conf = ("seed 1\npropagation two_ray\ndefaults phy b tx_range 250 cs_range 550\n" +
            radios([("a", 0, 0), ("b", 100, 0), ("c", 240, 0), ("d", 260, 0), ("e", 1000, 0)]))
    out = sim(conf, "duration 1\nframe 1000 a broadcast len 200 rate 1\n")
    f = frames(out)[0]
    got = sorted(r["radio"] for r in f["received_by"])
    print(f"broadcast from a (tx_range 250 m): received by {got}, attempts {f['attempts']}, "
          f"signals {[round(r['signal_dbm'], 1) for r in f['received_by']]} dBm")
    assert got == ["b", "c"] and f["attempts"] == 1 and f["acked"]


def test_range_thresholds_derived_from_model(sim):
    """With tx_range 250 m the rx sensitivity is the model's power at 250 m."""
    conf = ("seed 1\npropagation two_ray height 1.5\ndefaults phy b txpower 15 tx_range 250 cs_range 550\n"
            + radios([("a", 0, 0), ("b", 100, 0)]))
    out = sim(conf, "duration 0.1\n")
    r = out["medium"]["radios"][0]
    # two-ray beyond the crossover: Pr = Pt - (40 log10 d - 20 log10(ht hr))
    import math
    expect_rx = 15 - (40 * math.log10(250) - 20 * math.log10(1.5 * 1.5))
    expect_cs = 15 - (40 * math.log10(550) - 20 * math.log10(1.5 * 1.5))
    print(f"rx sensitivity {r['rx_sensitivity_dbm']} dBm (expected {expect_rx:.2f}), "
          f"cs threshold {r['cs_threshold_dbm']} dBm (expected {expect_cs:.2f})")
    assert abs(r["rx_sensitivity_dbm"] - expect_rx) < 0.01
    assert abs(r["cs_threshold_dbm"] - expect_cs) < 0.01


def test_indoor_wall_and_floor_attenuation(sim):
    base = "seed 1\npropagation indoor exponent 3 floor_loss 15 floor_height 3\ndefaults phy g\n"
    nodes = radios([("a", 0, 0), ("b", 20, 0)]) + "radio 02:00:00:00:01:00 name up pos 20 0 4\n"
    scen = "duration 1\nframe 1000 a broadcast len 100 rate 6\n"
    free = sim(base + nodes, scen)
    walled = sim(base + "wall 10 -5 10 5 loss 7\n" + nodes, scen)
    def sig(out, n):
        return next(r["signal_dbm"] for r in frames(out)[0]["received_by"] if r["radio"] == n)
    d_wall = sig(free, "b") - sig(walled, "b")
    import math
    d_floor = sig(free, "b") - sig(free, "up") - 30 * math.log10(math.hypot(20, 4) / 20)
    print(f"wall of 7 dB between a and b: signal drop {d_wall:.2f} dB; one floor up: "
          f"extra loss {d_floor:.2f} dB beyond distance (floor_loss 15)")
    assert abs(d_wall - 7) < 0.01 and abs(d_floor - 15) < 0.01


def test_multi_rate_table_attempts_reported_per_rate(sim):
    """At 3 dB SNR, 11 Mbit/s CCK fails and 1 Mbit/s DBPSK succeeds: the table
    11x2,1x3 is used as 2 tries at 11, then 1 at 1 Mbit/s.  (Sensitivity lowered
    to -95 dBm so that a 3 dB SNR frame is detected at all.)"""
    conf = "seed 1\nrx_sensitivity -95\ndefaults phy b\n" + radios([("a", 0, 0), ("b", 10, 0)]) + "link a b snr 3\n"
    out = sim(conf, "duration 1\nframe 1000 a b len 1000 rates 11x2,1x3\n")
    f = frames(out)[0]
    print(f"table 11x2,1x3 at 3 dB SNR: acked {f['acked']}, tries per rate {f['attempts_per_rate']}")
    assert f["acked"] and f["attempts_per_rate"] == [[11, 2], [1, 1]]


def test_retry_limit_caps_the_rate_table(sim):
    """Radio retry_short 3 caps a 11x4,1x4 table on a dead link at 3 tries."""
    conf = ("seed 1\ndefaults phy b retry_short 3\n" + radios([("a", 0, 0), ("b", 10, 0)]) +
            "link a b snr -20\n")
    out = sim(conf, "duration 1\nframe 1000 a b len 1000 rates 11x4,1x4\n")
    f = frames(out)[0]
    print(f"dead link, retry_short 3, table 11x4,1x4: tries per rate {f['attempts_per_rate']}")
    assert not f["acked"] and f["attempts_per_rate"] == [[11, 3], [1, 0]]


def test_drops_say_whether_the_limit_or_the_table_ended_the_frame(sim):
    """On a dead link, a table longer than the limit ends at the limit (a limit drop); a table
    shorter than the limit ends at the table (a table drop). The tries histogram counts each
    unicast frame by the transmissions it used; the limits in force are reported."""
    conf = ("seed 1\ndefaults phy b retry_short 3 retry_long 3\n" +
            radios([("a", 0, 0), ("b", 10, 0)]) + "link a b snr -20\n")
    out = sim(conf, "duration 1\nframe 1000 a b len 1000 rates 11x4,1x4\n"
                    "frame 200000 a b len 1000 rates 11x1,1x1\n"
                    "frame 400000 a broadcast len 100 rate 1\n")
    a = next(r for r in out["medium"]["radios"] if r["name"] == "a")
    print(f"dead link, limit 3: tables 11x4,1x4 and 11x1,1x1 -> limit drops {a['limit_drops']}, "
          f"table drops {a['table_drops']}, tries histogram {a['tries']}")
    assert (a["limit_drops"], a["table_drops"], a["retry_drops"]) == (1, 1, 2)
    assert a["tries"] == [0, 1, 1]          # one frame used 2 transmissions, one used 3
    assert (a["retry_short"], a["retry_long"]) == (3, 3)


def test_free_space_received_power(sim):
    """Friis at 2412 MHz, 100 m: 20 log10(4 pi d / lambda) = 80.09 dB."""
    import math
    conf = ("seed 1\npropagation free_space\ndefaults phy g txpower 20 gain 2\n" +
            radios([("a", 0, 0), ("b", 100, 0)]))
    out = sim(conf, "duration 0.1\nframe 1000 a broadcast len 100 rate 6\n")
    got = frames(out)[0]["received_by"][0]["signal_dbm"]
    lam = 299792458.0 / 2412e6
    expect = 20 + 2 + 2 - 20 * math.log10(4 * math.pi * 100 / lam)
    print(f"free space 100 m, 20 dBm + 2 x 2 dBi: received {got} dBm, Friis {expect:.2f} dBm")
    assert abs(got - expect) < 0.01


def test_shadowing_is_static_symmetric_and_has_the_stated_sigma(sim):
    """30 receivers on a circle around a: the spread of their received power
    around the mean is the shadowing sigma; b->a equals a->b."""
    import math
    import statistics
    ring = [(f"r{i}", 50 * math.cos(i / 30 * 2 * math.pi), 50 * math.sin(i / 30 * 2 * math.pi))
            for i in range(30)]
    conf = ("seed 77\npropagation log_distance exponent 3\nshadowing 6\nrx_sensitivity -200\n"
            "defaults phy g\n" + radios([("a", 0, 0)] + ring))
    scen = ("duration 1\nframe 1000 a broadcast len 100 rate 6\n"
            "frame 50000 r0 broadcast len 100 rate 6\nframe 90000 a broadcast len 100 rate 6\n")
    out = sim(conf, scen)
    first = {r["radio"]: r["signal_dbm"] for r in frames(out, "a")[0]["received_by"]}
    again = {r["radio"]: r["signal_dbm"] for r in frames(out, "a")[1]["received_by"]}
    back = {r["radio"]: r["signal_dbm"] for r in frames(out, "r0")[0]["received_by"]}
    sd = statistics.pstdev(first.values())
    print(f"shadowing sigma 6 dB: spread over 30 equidistant links {sd:.2f} dB; "
          f"a->r0 {first['r0']:.2f}, r0->a {back['a']:.2f} dBm")
    assert len(first) == 30 and first == again
    assert abs(first["r0"] - back["a"]) < 1e-6
    assert 6 * 0.6 < sd < 6 * 1.4


def test_rayleigh_fading_mean_power_is_the_link_mean(sim):
    """Per-frame Rayleigh fading: the received power varies frame to frame and its
    linear mean is the link's mean power (E[|h|^2] = 1)."""
    import math
    import statistics
    conf = ("seed 5\npropagation free_space\nfading rayleigh\nrx_sensitivity -200\ndefaults phy g\n" +
            radios([("a", 0, 0), ("b", 100, 0)]))
    scen = "duration 2\n" + "".join(f"frame {1000 + 2000 * k} a broadcast len 50 rate 6\n"
                                     for k in range(800))
    out = sim(conf, scen)
    p = [f["received_by"][0]["signal_dbm"] for f in frames(out) if f["received_by"]]
    lam = 299792458.0 / 2412e6
    mean_dbm = 15 - 20 * math.log10(4 * math.pi * 100 / lam)
    lin = statistics.fmean(10 ** ((x - mean_dbm) / 10) for x in p)
    print(f"Rayleigh: {len(p)} frames, linear mean gain {lin:.3f} (expected 1), "
          f"dB spread {statistics.pstdev(p):.2f} dB (Rayleigh: 5.57 dB)")
    assert len(p) >= 790 and abs(lin - 1) < 0.12   # a deep fade (> 26 dB) may lose a frame
    assert 4.5 < statistics.pstdev(p) < 6.7


def _fades(sim, fading: str, spacing_us: int, count: int, seed: int = 5):
    """Received power (dB above the link's mean) of `count` broadcasts a -> b, `spacing_us`
    apart, and of one b -> a broadcast 400 us after each of them (pairs both heard)."""
    import math
    conf = (f"seed {seed}\npropagation free_space\n{fading}\nrx_sensitivity -200\n"
            "defaults phy g\n" + radios([("a", 0, 0), ("b", 100, 0)]))
    scen = f"duration {count * spacing_us / 1e6 + 1:g}\n" + "".join(
        f"frame {1000 + spacing_us * k} a broadcast len 50 rate 6\n"
        f"frame {1400 + spacing_us * k} b broadcast len 50 rate 6\n" for k in range(count))
    out = sim(conf, scen)
    lam = 299792458.0 / 2412e6
    mean_dbm = 15 - 20 * math.log10(4 * math.pi * 100 / lam)
    pairs = [(x["received_by"], y["received_by"]) for x, y in zip(frames(out, "a"), frames(out, "b"))]
    assert len(pairs) == count
    kept = [(x[0]["signal_dbm"] - mean_dbm, y[0]["signal_dbm"] - mean_dbm) for x, y in pairs
            if x and y]
    assert len(kept) > 0.95 * count
    return [x for x, _ in kept], [y for _, y in kept]


def _lag1(xs):
    import statistics
    return statistics.correlation(xs[:-1], xs[1:])


def test_fading_with_a_coherence_time_drifts_and_is_the_same_both_ways(sim):
    """Time-correlated fading (log-normal, 4 dB, coherence 50 ms), frames 1 ms apart:

        a ))) 100 m ((( b      a -> b every 1 ms, b -> a 0.4 ms later

    consecutive fades correlate as exp(-1/50) = 0.98 and each direction sees the same fade,
    drifted over 0.4 ms (rms gap 4 sqrt(2 (1 - exp(-0.4/50))) = 0.50 dB, where two draws
    would differ by 5.7 dB); per-frame fading (no coherence) draws afresh: no correlation.
    The spread stays 4 dB."""
    import math
    import statistics
    slow, slow_back = _fades(sim, "fading lognormal sigma 4 coherence 50", 1000, 2000)
    fresh, fresh_back = _fades(sim, "fading lognormal sigma 4", 1000, 2000)
    gap = math.sqrt(statistics.fmean((x - y) ** 2 for x, y in zip(slow, slow_back)))
    print(f"coherence 50 ms: lag-1 correlation {_lag1(slow):.3f}, spread "
          f"{statistics.pstdev(slow):.2f} dB, rms a->b / b->a gap {gap:.2f} dB; "
          f"per frame: lag-1 {_lag1(fresh):.3f}, spread {statistics.pstdev(fresh):.2f} dB")
    assert _lag1(slow) > 0.95 and abs(_lag1(fresh)) < 0.1
    assert 0.35 < gap < 0.7 and statistics.correlation(fresh, fresh_back) < 0.2
    assert 4 * 0.75 < statistics.pstdev(fresh) < 4 * 1.25
    assert 4 * 0.6 < statistics.pstdev(slow) < 4 * 1.4   # 40 coherence times: a wider band


def test_rayleigh_fading_with_a_coherence_time_keeps_the_link_mean(sim):
    """Rayleigh fading with coherence 20 ms, frames 10 ms apart over 8 s: correlation
    exp(-0.5) between neighbours (in dB, lower), mean linear gain 1 as per frame."""
    import statistics
    fwd, _ = _fades(sim, "fading rayleigh coherence 20", 10_000, 800)
    lin = statistics.fmean(10 ** (x / 10) for x in fwd)
    print(f"Rayleigh, coherence 20 ms: lag-1 {_lag1(fwd):.3f}, linear mean gain {lin:.3f}")
    assert 0.2 < _lag1(fwd) < 0.7
    assert abs(lin - 1) < 0.2


def test_fading_coherence_errors_name_the_key(config_error):
    for text, expect in [("fading lognormal sigma 2 coherence -5\n", "coherence must be >= 0 ms"),
                         ("fading rayleigh coherence\n", "expected fading MODEL [sigma DB] [coherence MS]"),
                         ("fading rayleigh speed 3\n", "'speed' is not sigma or coherence"),
                         ("fading lognormal coherence 50\n", "lognormal needs sigma DB")]:
        assert ":1: fading: " + expect in config_error(text)


def test_rts_failures_count_the_attempts_that_got_no_cts(sim):
    """Hidden terminals, both sending to R:

        A ----- 200 m ----- R ----- 200 m ----- C      A and C cannot sense each other

    with RTS/CTS the failed attempts are mostly lost RTS frames (no CTS: rts_failures) and the
    DATA stage rarely fails (the CTS silences the other sender); without it every failed
    attempt is a DATA frame, and rts_failures stays 0."""
    conf = ("seed 3\npropagation two_ray\ndefaults phy b tx_range 250 cs_range 300\n"
            + radios([("A", 0, 0), ("R", 200, 0), ("C", 400, 0)]))

    def links(rts: str):
        out = sim(conf, "duration 3\nwarmup 0\n" + "".join(
            f"flow {s} R payload 1000 rate 11{rts}\n" for s in ("A", "C")))
        got = [l for l in out["medium"]["links"] if l["rx"] == 1]
        assert len(got) == 2, got  # A -> R and C -> R
        return got

    for l in links(" rts"):
        failed = l["attempts"] - l["successes"]
        print(f"RTS/CTS, {l['tx']}->R: attempts {l['attempts']}, failed {failed}, "
              f"at the RTS {l['rts_failures']}")
        assert failed > 20 and l["rts_failures"] >= 0.9 * failed
    for l in links(""):
        failed = l["attempts"] - l["successes"]
        print(f"basic, {l['tx']}->R: attempts {l['attempts']}, failed {failed}")
        assert failed > 20 and l["rts_failures"] == 0


def dead_link_frame(sim, option: str, table: str) -> dict:
    """a -> b stats of one 1000-byte frame with rate table ``table`` on a dead link (-20 dB),
    under the config line ``option`` (empty: the defaults)."""
    conf = ("seed 1\ndefaults phy b\n" + (f"{option}\n" if option else "")
            + radios([("a", 0, 0), ("b", 10, 0)]) + "link a b snr -20\n")
    out = sim(conf, f"duration 1\nframe 1000 a b len 1000 rates {table}\n")
    return next(l for l in out["medium"]["links"] if l["tx"] == 0 and l["rx"] == 1)


@pytest.mark.parametrize("table,choice,rts_tries", [
    ("5.5x2,5.5x3rts", "", 3),               # each entry's flag, as mac80211 asks
    ("5.5x2,5.5x3rts", "first_entry", 0),    # the first entry decides: all bare
    ("5.5x2rts,5.5x3", "first_entry", 5),    # ... or all behind RTS/CTS
])
def test_rts_flags_choose_which_attempts_use_rts(sim, table, choice, rts_tries):
    """One frame on a dead link with minstrel's kind of table (fallback entries flagged
    RTS/CTS): every attempt fails, at the RTS when it used one (rts_failures)."""
    link = dead_link_frame(sim, f"rts_flags {choice}" if choice else "", table)
    print(f"table {table}, rts_flags {choice or 'per_entry'}: {link['attempts']} attempts, "
          f"{link['rts_failures']} at the RTS")
    assert link["attempts"] == 5 and link["rts_failures"] == rts_tries


def test_rts_flags_errors_name_the_key(config_error):
    assert ":1: rts_flags: expected per_entry or first_entry" in config_error("rts_flags always\n")


def test_late_collisions_count_the_failed_attempts_hit_only_by_later_frames(sim):
    """W and S cannot hear each other and reach R at the same power; W's frame starts first,
    S's 100 us later, one try each, so both fail:

        W ----25 dB----> R <----25 dB---- S      (W and S: no link)

    W's attempt was hit only by a frame that began after it (a CTS from R could have held S
    back: late), S's met W's already on the air (no CTS could have helped). Frames begun
    within a slot of each other began together: late for neither."""
    conf = ("seed 9\ndefaults phy b\n" + radios([("W", 0, 0), ("S", 1, 0), ("R", 2, 0)])
            + "link S W none\nlink W R snr 25\nlink S R snr 25\n")
    out = sim(conf, "duration 1\nframe 1000 W R len 1000 rates 11x1\n"
                    "frame 1100 S R len 1000 rates 11x1\n")
    links = {(l["tx"], l["rx"]): l for l in out["medium"]["links"]}
    w, s = links[(0, 2)], links[(1, 2)]
    print(f"W->R: collisions {w['collisions']}, late {w['late_collisions']}; "
          f"S->R: collisions {s['collisions']}, late {s['late_collisions']}")
    assert (w["successes"], s["successes"]) == (0, 0)
    assert (w["collisions"], w["late_collisions"]) == (1, 1)
    assert (s["collisions"], s["late_collisions"]) == (1, 0)
    # begun within a slot (10 us apart, the 802.11b slot is 20 us): together, late for neither
    out = sim(conf, "duration 1\nframe 1000 W R len 1000 rates 11x1\n"
                    "frame 1010 S R len 1000 rates 11x1\n")
    links = {(l["tx"], l["rx"]): l for l in out["medium"]["links"]}
    assert [(links[k]["collisions"], links[k]["late_collisions"]) for k in ((0, 2), (1, 2))] \
        == [(1, 0), (1, 0)]


@pytest.mark.parametrize("table,series,attempts,rts_failures", [
    ("5.5x2,5.5x3", "", 5, 0),               # the kernel's table: 2 + 3 tries, then dropped
    ("5.5x2,5.5x3", "single", 7, 0),         # one series: bare tries to retry_short (7)
    ("5.5x2rts", "", 2, 2),
    ("5.5x2rts", "single", 7, 7),            # RTS failures end at retry_short
])
def test_retry_series_single_tries_to_the_retry_limit(sim, table, series, attempts, rts_failures):
    """One frame on a dead link: with the kernel's table its entries' counts end the tries;
    with one series (madwifi at a fixed rate) only the retry limits do:

        a ----(-20 dB)----> b
    """
    link = dead_link_frame(sim, f"retry_series {series}" if series else "", table)
    print(f"table {table}, retry_series {series or 'kernel'}: {link['attempts']} attempts, "
          f"{link['rts_failures']} at the RTS")
    assert (link["attempts"], link["rts_failures"]) == (attempts, rts_failures)


def test_retry_series_single_counts_data_after_a_cts_on_the_long_limit(sim):
    """RTS and CTS (1 Mbit/s, the only basic rate; sensitivity below the noise floor) get
    through at 2 dB SNR, an 11 Mbit/s DATA frame does not: one series ends at retry_long (4) data tries after a CTS, where the table would end at 2.

        a ----(2 dB)----> b
    """
    conf = ("seed 1\ndefaults phy b basic_rates 1 rx_sensitivity -110\nretry_series single\n"
            + radios([("a", 0, 0), ("b", 10, 0)]) + "link a b snr 2\n")
    out = sim(conf, "duration 1\nframe 1000 a b len 1500 rates 11x2rts\n")
    link = next(l for l in out["medium"]["links"] if l["tx"] == 0 and l["rx"] == 1)
    print(f"{link['attempts']} attempts, {link['rts_failures']} at the RTS, "
          f"{link['successes']} acknowledged")
    assert link["successes"] == 0 and link["attempts"] - link["rts_failures"] == 4


def test_retry_series_errors_name_the_key(config_error):
    assert ":1: retry_series: expected kernel or single" in config_error("retry_series two\n")


def nav_reset_run(sim, nav_reset: str, answered: bool) -> tuple:
    """Four radios that all hear each other:

        A ---- 10 m ---- B        A -> B: 1500-byte frames at 2 Mbit/s behind RTS/CTS,
        |                |        one try each; unanswered: B decodes nothing of A
        |                |
        C ---- 10 m ---- D        C -> D bare, saturated

    Returns (C -> D successes, C's NAV resets) over 2 s."""
    conf = ("seed 5\ndefaults phy b\n" + (f"nav_reset {nav_reset}\n" if nav_reset else "")
            + radios([("A", 0, 0), ("B", 10, 0), ("C", 0, 10), ("D", 10, 10)])
            + ("" if answered else "link A B per 1 oneway\n"))
    out = sim(conf, "duration 2\nwarmup 0\nflow A B payload 1500 rate 2 rts count 1\n"
              "flow C D payload 1000 rate 11\n")
    cd = next(l for l in out["medium"]["links"] if l["tx"] == 2 and l["rx"] == 3)
    return cd["successes"], out["medium"]["radios"][2]["nav_resets"]


def test_nav_reset_frees_the_bystanders_of_an_unanswered_rts(sim):
    """802.11-2012 9.3.2.4: a NAV set from an RTS may be reset when nothing starts on the air
    within 2 SIFS + CTS + PHY-RX-START delay + 2 slots of the RTS's end. With A's RTS never
    answered, C waits out every RTS's full Duration (CTS + 6 ms of DATA + ACK) without the rule
    (A's next RTS comes before it ends: C never sends) and only the short window with it; when
    B answers, the CTS starts inside the window, so the rule changes (almost) nothing."""
    off, off_resets = nav_reset_run(sim, "", answered=False)
    on, on_resets = nav_reset_run(sim, "on", answered=False)
    print(f"unanswered RTS: C -> D {off} frames without the rule, {on} with it "
          f"({on_resets} NAV resets at C)")
    assert off_resets == 0 and on_resets > 100 and on > 1.2 * off
    off, _ = nav_reset_run(sim, "off", answered=True)
    on, on_resets = nav_reset_run(sim, "on", answered=True)
    print(f"answered RTS: C -> D {off} frames without the rule, {on} with it "
          f"({on_resets} NAV resets at C)")
    assert abs(on / off - 1) < 0.05


def test_nav_reset_errors_name_the_key(config_error):
    assert ":1: nav_reset: expected off or on" in config_error("nav_reset yes\n")
