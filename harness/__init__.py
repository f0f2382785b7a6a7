"""Emulation harness for TCP over multihop 802.11 (mac80211_hwsim + mediumd).

Layers, top down; each package imports only the layers below it (docs/architecture.md, enforced
by tests/unit/test_layers.py), so each is usable without the ones above it:
  front ends     harness.cli (the ``harness`` command), harness.testing (pytest plugin)
  parallel runs  harness.parallel (a sweep's runs several at once, Dask workers)
  the guest      harness.vm (a command in a User-Mode Linux guest)
  compatibility  harness.compat (Mininet-WiFi's API on the layers below)
  the prompt     harness.interactive (``harness cli``: a running network and its commands)
  studies API    harness.study (finds the studies of studies/; claims beside ours, study pages)
  analysis       harness.analysis (stats, trends, plots, reports, numbers read from records)
  experiments    harness.experiment (YAML schema, sweeps, the results store, one run)
  builders       topologies (Topology builders), policies (TCP, ACK and MAC policies)
  traffic        harness.traffic (iperf3 flows, ping, TCP state sampling)
  network API    harness.net (Topology, the description; Network, which realises it)
  the medium     harness.medium (mediumd/, in C: its config, daemon, control, counters)
  kernel         harness.kernel (namespaces, hwsim radios, iw, TCP modules)
  base           harness.errors, harness.paths, harness.params (declaration types)
"""
__version__ = "0.1.0"
