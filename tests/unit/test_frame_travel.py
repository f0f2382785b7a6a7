"""Paper 002's arithmetic (policies/frame_travel.py): Eqs. (1) and (4) with Tables II and III
reproduce every number the paper prints; Eq. (2) and mac80211's integer form of it; the
diameter estimate and retry limit of Eq. (5)."""
from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.kernel.mesh import MeshPath
from harness.kernel.wireless import RETRY_LIMIT_MAX
from policies import frame_travel as ft

BEST, WORST, NORMAL = ft.CASES["best"], ft.CASES["worst"], ft.CASES["normal"]


# -- Eq. (1): one hop --------------------------------------------------------------------
def test_single_hop_without_retries_matches_the_cases():
    # T_F + T_ACK at R = 0: 70 + 0 + 250 + 60, 70 + 300 + 2070 + 60, 70 + 140 + 530 + 60
    assert ft.t_sum(0, BEST) == 380
    assert ft.t_sum(0, WORST) == 2500
    assert ft.t_sum(0, NORMAL) == 800


def test_contention_windows_double_from_cwmin_to_cwmax():
    assert [ft.contention_window(i) for i in range(8)] == [15, 31, 63, 127, 255, 511, 1023, 1023]
    assert [ft.backoff_slots(ft.contention_window(i), "half") for i in range(3)] == [7, 15, 31]


def test_each_retransmission_costs_ack_timeout_aifs_backoff_and_frame():
    # worst, i = 2: 60 + 70 + 63 * 20 + 2070
    assert ft.t_retransmission(2, WORST) == 60 + 70 + 63 * 20 + 2070
    assert ft.t_sum(3, BEST) - ft.t_sum(2, BEST) == 380


# -- Eq. (4) and the numbers of §III ---------------------------------------------------------
def test_normal_case_five_hops_nine_retries_is_236_8_ms():
    assert ft.t_multihop(5, 9, NORMAL) == pytest.approx(236_800)


def test_best_case_five_hops_31_retries_is_60_8_ms():
    assert ft.t_multihop(5, 31, BEST) == pytest.approx(60_800)


def test_worst_case_crosses_rto_min_at_seven_retries_from_four_hops():
    assert ft.t_multihop(4, 7, WORST) == pytest.approx(233_600)
    assert ft.t_multihop(5, 7, WORST) == pytest.approx(292_000)
    assert {h: ft.first_exceeding(h, WORST) for h in range(1, 6)} == {1: 14, 2: 9, 3: 8, 4: 7, 5: 7}


def test_normal_case_needs_two_to_three_more_retries_than_worst_from_three_hops():
    normal = {h: ft.first_exceeding(h, NORMAL) for h in range(1, 6)}
    worst = {h: ft.first_exceeding(h, WORST) for h in range(1, 6)}
    assert normal == {1: 24, 2: 14, 3: 11, 4: 10, 5: 9}
    assert all(2 <= normal[h] - worst[h] <= 3 for h in (3, 4, 5))


def test_best_case_never_reaches_rto_min():
    assert ft.first_exceeding(5, BEST) is None
    assert max(ft.t_multihop(h, r, BEST) for h in range(1, 6) for r in range(32)) == 60_800


def test_the_standard_doubling_before_the_first_retry_does_not_give_the_paper_number():
    doubled = ft.t_first(NORMAL) + ft.t_ack(NORMAL) + sum(
        ft.t_ack(NORMAL) + 70 + ft.backoff_slots(ft.contention_window(i + 1), "half") * 20 + 530
        for i in range(9))
    assert 5 * doubled == pytest.approx(287_200)


def test_fig2_table_grows_linearly_in_hops_and_faster_than_linearly_in_retries():
    table = ft.travel_table(NORMAL, range(1, 6), range(5, 16))
    assert table[5][9] == pytest.approx(236.8)
    assert all(table[h][r] == pytest.approx(h * table[1][r]) for h in range(1, 6) for r in range(5, 16))
    steps = [table[1][r + 1] - table[1][r] for r in range(5, 15)]
    assert steps[0] < steps[1]          # the window still doubles
    assert all(s > 0 for s in steps)


def test_bad_arguments_name_what_is_allowed():
    with pytest.raises(HarnessError, match="allowed best, worst, normal"):
        ft.case("typical")
    with pytest.raises(HarnessError, match="hops 0 is invalid"):
        ft.t_multihop(0, 1, BEST)
    with pytest.raises(HarnessError, match="retries -1 is invalid"):
        ft.t_sum(-1, BEST)
    with pytest.raises(HarnessError, match="allowed none, half, full"):
        ft.backoff_slots(15, "some")


# -- Eq. (2) ------------------------------------------------------------------------------
def test_airtime_metric_is_overhead_plus_test_frame_over_rate_scaled_by_losses():
    assert ft.airtime_metric(54) == pytest.approx(1 + 8192 / 54)
    assert ft.airtime_metric(54, 0.5) == pytest.approx(2 * (1 + 8192 / 54))
    assert ft.airtime_metric(6) > ft.airtime_metric(54)            # monotone in the rate
    assert ft.airtime_metric(54, 0.2) > ft.airtime_metric(54, 0.1)  # and in the errors
    assert ft.airtime_metric(54, test_frame_bits=ft.PAPER_TEST_FRAME_BITS) \
        == pytest.approx(1 + 8182 / 54)
    with pytest.raises(HarnessError, match="0 <= e < 1"):
        ft.airtime_metric(54, 1.0)
    with pytest.raises(HarnessError, match="rate > 0"):
        ft.airtime_metric(0)


def test_kernel_metric_is_eq2_in_fixed_point_on_the_rate_in_100_kbit_units():
    # 54 Mbit/s, no errors: 1 + 81920 / 540 = 152.7 -> 152 (integer arithmetic)
    assert ft.kernel_airtime_metric(54_000) == 152
    assert ft.kernel_airtime_metric(27_500) == int(1 + 81920 / 275)
    # an error average of 50 % doubles it (err = 128/256)
    assert ft.kernel_airtime_metric(54_000, 50) == 2 * 152 + 1
    for kbps in (1_000, 6_000, 24_000, 54_000):
        assert abs(ft.kernel_airtime_metric(kbps) - ft.airtime_metric(kbps / 1000)) < 1
    assert ft.kernel_airtime_metric(0) == ft.MAX_METRIC
    assert ft.kernel_airtime_metric(54_000, 100) == ft.MAX_METRIC


def test_path_metric_is_cumulative():
    assert ft.path_metric([152, 152, 300]) == 604


# -- Eq. (5) ------------------------------------------------------------------------------
def route(dst, nh, metric, hops):
    return MeshPath(dst, nh, metric, hops)


def test_diameter_adds_the_two_largest_metrics_through_different_neighbours():
    # a middle node of a 5-hop chain a-b-[c]-d-e-f: two hops left, three right
    routes = [route("a", "b", 300, 2), route("b", "b", 150, 1), route("f", "d", 460, 3),
              route("e", "d", 300, 2)]
    metric, hops, used = ft.diameter(routes)
    assert (metric, hops) == (760, 5) and {r.destination for r in used} == {"a", "f"}


def test_diameter_of_a_chain_end_is_its_farthest_route():
    assert ft.diameter([route("f", "b", 760, 5), route("c", "b", 300, 2)])[:2] == (760, 5)
    assert ft.diameter([])[:2] == (0, 0)


def test_frame_airtime_from_metric_scales_the_test_frame_to_a_data_frame():
    one = ft.airtime_metric(54)
    assert ft.frame_airtime_from_metric(one, 1) == pytest.approx(12000 / 54)
    assert ft.frame_airtime_from_metric(3 * one, 3) == pytest.approx(3 * 12000 / 54)


def test_travel_time_from_metric_equals_eq4_when_the_metric_is_the_case_rate():
    # at the normal case's rate the metric gives 12000 / 24 = 500 us per frame, not Table III's
    # 530 (which adds the PHY preamble): the rest of Eq. (4) is the same
    metric = 5 * ft.airtime_metric(24)
    got = ft.t_multihop_from_metric(9, metric, 5, NORMAL)
    assert got == pytest.approx(ft.t_multihop(5, 9, NORMAL, t_tx_frame=500))


def test_retry_limit_is_the_largest_keeping_the_diameter_under_rto_min():
    metric = 5 * ft.airtime_metric(24)
    r = ft.retry_limit_for(metric, 5, NORMAL)
    assert ft.t_multihop_from_metric(r, metric, 5, NORMAL) < ft.RTO_MIN_US
    assert ft.t_multihop_from_metric(r + 1, metric, 5, NORMAL) >= ft.RTO_MIN_US
    assert r == 8
    # shorter diameters afford more retries; a huge metric leaves the smallest limit
    assert ft.retry_limit_for(3 * ft.airtime_metric(24), 3, NORMAL) > r
    assert ft.retry_limit_for(1e9, 5, NORMAL) == 1
    assert ft.retry_limit_for(0, 0, NORMAL) == RETRY_LIMIT_MAX
