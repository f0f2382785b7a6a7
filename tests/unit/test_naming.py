"""Names of a run's network (harness.kernel.naming): built in one place, found again by clean."""
from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.kernel import naming


def test_network_ids_carry_the_run_tag():
    assert naming.network_ssid("3fa9") == "hx-3fa9"
    assert naming.network_bssid("3fa9") == "02:68:78:ff:ff:3f"
    # locally administered, unicast: the same bit pattern as the radios' MACs
    assert naming.network_bssid("00aa")[:8] == naming.radio_mac(1, 0)[:8]
    with pytest.raises(HarnessError, match="run tag 'xyz' is invalid"):
        naming.network_bssid("xyz")


def test_bridges_of_a_run_share_its_prefix():
    name = naming.ovs_bridge_name("3fa9", "s1")
    assert name.startswith(naming.ovs_bridge_prefix("3fa9")) and naming.is_harness_bridge(name)
    assert not name.startswith(naming.ovs_bridge_prefix("3fa8"))


def test_interfaces_inside_a_namespace():
    assert [naming.wlan_name(i) for i in range(2)] == ["wlan0", "wlan1"]
    assert naming.eth_name([]) == "eth0"
    assert naming.eth_name(["wlan0", "eth0", "eth1"]) == "eth2"
