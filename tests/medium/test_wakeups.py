"""mediumd sleeps until the next event that can change anything (medium_next_wakeup_time):
a cancelled channel access or an ACK timeout whose response is already on its way is
dropped unprocessed instead of waking the daemon. In the VM every wake-up is guest work,
so this is run time; it must not be physics. Each scenario runs twice in mediumsim, waking
for every queued event (--every-event) and only for live ones, and every number but the
event and wake-up counts must be the same."""
import pytest
from conftest import radios

#: Bookkeeping that differs by design between the two ways of stepping.
COUNTS = ("events", "events_dropped", "wakeups", "wall_s", "events_per_s")

SCENARIOS = {
    # a --- b     one saturated flow, a TCP-like return flow beside it
    "two stations, data and ACK flows": (
        "seed 3\ndefaults phy b\n" + radios([("a", 0, 0), ("b", 10, 0)]),
        "duration 5\nwarmup 0\nflow a b payload 1460 rate 2\nflow b a payload 52 rate 2\n"),
    # A --- R --- C      A and C hidden from each other, D beside R; shadowing, Rayleigh
    #        \
    #         D
    "hidden terminals, RTS/CTS, fading": (
        "seed 1\npropagation two_ray\nshadowing 4\nfading rayleigh\n"
        "defaults phy b tx_range 250 cs_range 300\n" +
        radios([("A", 0, 0), ("R", 200, 0), ("C", 400, 0), ("D", 220, 50)]),
        "duration 3\nwarmup 0\nflow A R payload 1000 rate 11\nflow C R payload 1000 rate 11 rts\n"
        "flow D A payload 300 rate 2\n"),
    # a --- b     DATA lost with p = 0.4: retries, timeouts, drops at the limit
    "lossy link, retry limit": (
        "seed 23\nafter_failure ack_timeout\ndefaults phy g retry_short 3\n" +
        radios([("a", 0, 0), ("b", 10, 0)]) + "link a b per 0.4 oneway\n",
        "duration 5\nwarmup 0\nflow a b payload 1000 rate 54\nflow b a payload 40 rate 24\n"),
    # a   b   c   d   e    a chain, 802.11g, every station sending to its right neighbour
    "contended chain, 802.11g": (
        "seed 9\npropagation two_ray\ndefaults phy g tx_range 120 cs_range 260\n" +
        radios([(n, 100 * i, 0) for i, n in enumerate("abcde")]),
        "duration 3\nwarmup 0\n" + "".join(f"flow {s} {d} payload 1460 rate 54\n"
                                           for s, d in zip("abcd", "bcde"))),
    # a --- b -->   b drives away (and back): positions follow the time of each event
    "a station that moves": (
        "seed 5\npropagation two_ray\ndefaults phy b tx_range 250 cs_range 550\n" +
        radios([("a", 0, 0), ("b", 100, 0), ("c", 0, 120)]),
        "duration 4\nwarmup 0\nwaypoint b 0 100 0 0\nwaypoint b 2 400 0 0\n"
        "waypoint b 3 120 10 0\nflow a b payload 1000 rate 11\nflow c a payload 300 rate 2\n"),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_waking_only_for_live_events_changes_nothing_but_the_wakeups(sim, name):
    conf, scen = SCENARIOS[name]
    every = sim(conf, scen, flags=("--every-event",))
    live = sim(conf, scen)
    print(f"{name}: wake-ups {every['wakeups']} -> {live['wakeups']} "
          f"({1 - live['wakeups'] / every['wakeups']:.0%} fewer), events dropped unprocessed "
          f"{live['events_dropped']}; frames acked {[f['acked'] for f in live['flows']]}")
    assert every["events_dropped"] == 0
    assert live["events"] + live["events_dropped"] == every["events"]
    assert live["wakeups"] < every["wakeups"]
    for out in (every, live):
        for k in COUNTS:
            out.pop(k)
        out["medium"].pop("events")  # the same count, inside the medium's block
    assert live == every
