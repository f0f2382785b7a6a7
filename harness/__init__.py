"""Emulation harness for TCP over multihop 802.11 (mac80211_hwsim + mediumd).

Layers, each usable without the ones above it:
  kernel plumbing  harness.netns, harness.hwsim, harness.wireless, harness.tcp
  the medium       mediumd/ (C) and harness.medium (config + control client)
  network API      harness.topo (description), harness.net (Network realises it)
  traffic          harness.traffic, harness.iperf
  experiments      harness.experiment, harness.stats, harness.trends, harness.plot
  front ends       harness.cli, harness.pytest_plugin, harness.vm
"""
__version__ = "0.1.0"
