"""n saturated senders in one carrier-sense domain: within 5% of Bianchi.

Regime (Bianchi's assumptions): ideal channel, every station hears every
other at the same power (senders co-located, receiver 10 m away, so no
capture anywhere), saturated queues, 1500-byte payloads, basic access or
RTS/CTS.  Bianchi's Tc here is the colliding PPDU + EIFS: the standard makes
everyone who saw the errored frame defer EIFS, and mediumd's senders defer
EIFS after a failed exchange too (docs/medium.md)."""
import pytest
from conftest import radios, rel_err

from harness.medium.analytic import bianchi_goodput_mbps, bianchi_tau, timing

NS = [2, 3, 5, 10, 15, 20]
REGIMES = [("b", 11, False), ("b", 11, True), ("g", 54, False), ("g", 54, True), ("b", 1, False)]
# every n from 2 to 20 in the headline regime, a subset of n in the others
CASES = ([(n, "b", 11, False) for n in range(2, 21)] +
         [(n, p, r, s) for p, r, s in REGIMES[1:] for n in NS])


@pytest.mark.parametrize("n,phy,rate,rts", CASES,
                         ids=[f"n{n}-{p}-{r}-{'rts' if s else 'basic'}" for n, p, r, s in CASES])
def test_saturation_throughput_matches_bianchi(sim, n, phy, rate, rts):
    conf = (f"seed 11\npropagation log_distance exponent 3\ndefaults phy {phy}\n" +
            radios([("ap", 10, 0)] + [(f"s{i}", 0, 0) for i in range(n)]))
    scen = "duration 20\nwarmup 1\n" + "".join(
        f"flow s{i} ap payload 1500 rate {rate}{' rts' if rts else ''}\n" for i in range(n))
    out = sim(conf, scen)
    measured = sum(f["goodput_mbps"] for f in out["flows"])
    expected = bianchi_goodput_mbps(n, phy, rate, 1500, rts=rts)
    tm = timing(phy)
    _, p_model = bianchi_tau(n, tm.cw_min + 1, 6 if tm.cw_min == 15 else 5)
    links = [l for l in out["medium"]["links"] if l["attempts"]]
    p_sim = sum(l["attempts"] - l["successes"] for l in links) / sum(l["attempts"] for l in links)
    err = rel_err(measured, expected)
    msg = (f"n={n} 802.11{phy} {rate} Mbit/s {'RTS/CTS' if rts else 'basic'}: "
           f"aggregate {measured:.4f} Mbit/s, Bianchi {expected:.4f} Mbit/s, error {err * 100:+.2f}%; "
           f"conditional failure probability sim {p_sim:.3f}, model {p_model:.3f}")
    print(msg)
    assert abs(err) < 0.05, msg
