"""One saturated sender: goodput within 3% of the analytic DCF value.

Regime: two radios 10 m apart (SNR > 35 dB, so no frame errors), 1500-byte
payload + 36 bytes MAC/LLC/FCS, default basic rates, retry limit never hit.
Analytic: T = DIFS + CWmin/2 slot [+ RTS + SIFS + CTS + SIFS] + DATA + SIFS + ACK.
"""
import pytest
from conftest import radios, rel_err

from harness.medium.analytic import single_sender_goodput_mbps

CASES = ([("b", r, False) for r in (1, 2, 5.5, 11)] +
         [("b", r, True) for r in (2, 5.5, 11)] +          # no short preamble at 1 Mbit/s
         [("g", r, False) for r in (6, 9, 12, 18, 24, 36, 48, 54)] +
         [("a", r, False) for r in (6, 9, 12, 18, 24, 36, 48, 54)])


@pytest.mark.parametrize("rts", [False, True], ids=["basic", "rts"])
@pytest.mark.parametrize("phy,rate,short", CASES,
                         ids=[f"{p}-{r:g}{'-short' if s else ''}" for p, r, s in CASES])
def test_single_sender_matches_analytic(sim, phy, rate, short, rts):
    conf = (f"seed 5\npropagation log_distance exponent 3\ndefaults phy {phy} short_slot on\n" +
            radios([("a", 0, 0), ("b", 10, 0)]))
    opts = (" short_preamble" if short else "") + (" rts" if rts else "")
    out = sim(conf, f"duration 5\nwarmup 0.2\nflow a b payload 1500 rate {rate:g}{opts}\n")
    measured = out["flows"][0]["goodput_mbps"]
    expected = single_sender_goodput_mbps(phy, rate, 1500, short_preamble=short, rts=rts)
    err = rel_err(measured, expected)
    msg = (f"802.11{phy} {rate:g} Mbit/s {'short' if short else 'long'} preamble "
           f"{'RTS/CTS' if rts else 'basic'}: measured {measured:.4f} Mbit/s, "
           f"analytic {expected:.4f} Mbit/s, error {err * 100:+.2f}%")
    print(msg)
    assert abs(err) < 0.03, msg
    assert out["flows"][0]["retry_drops"] == 0, msg


@pytest.mark.parametrize("rate", [6, 24, 54])
def test_single_sender_g_long_slot(sim, rate):
    """802.11g with the long (20 us) slot, DIFS 50 us, CWmin 31 (b compatibility)."""
    conf = ("seed 5\npropagation log_distance exponent 3\ndefaults phy g short_slot off\n" +
            radios([("a", 0, 0), ("b", 10, 0)]))
    out = sim(conf, f"duration 5\nwarmup 0.2\nflow a b payload 1500 rate {rate}\n")
    measured = out["flows"][0]["goodput_mbps"]
    expected = single_sender_goodput_mbps("g", rate, 1500, short_slot=False)
    err = rel_err(measured, expected)
    msg = (f"802.11g long slot {rate} Mbit/s: measured {measured:.4f}, analytic "
           f"{expected:.4f} Mbit/s, error {err * 100:+.2f}%")
    print(msg)
    assert abs(err) < 0.03, msg
