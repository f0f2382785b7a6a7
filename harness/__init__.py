"""Emulation harness for TCP over multihop 802.11 (mac80211_hwsim + mediumd).

Layers, each usable without the ones above it:
  kernel plumbing  harness.kernel.netns, harness.kernel.hwsim, harness.kernel.wireless, harness.kernel.tcp
  the medium       mediumd/ (C) and harness.medium.daemon (config + control client)
  network API      harness.net.topo (description), harness.net.network (Network realises it)
  traffic          harness.traffic.flows, harness.traffic.iperf
  experiments      harness.experiment, harness.analysis.stats, harness.analysis.trends, harness.analysis.plot
  front ends       harness.cli.main, harness.testing.pytest_plugin, harness.vm
"""
__version__ = "0.1.0"
