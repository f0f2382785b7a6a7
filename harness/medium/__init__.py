"""The medium: how the harness drives ``mediumd`` (the C daemon under ``mediumd/``).

``spec`` validates a medium description (propagation, fading, link overrides, walls),
``config`` turns radios and a spec into the daemon's config text (pure), ``daemon`` starts
and stops the daemon for a network, ``counters`` reduces its statistics, ``control`` is the
client of its control socket, ``pcap`` reads its capture, ``build`` compiles it,
``link_table`` asks the medium's C core what each link delivers, ``propagation`` is its path
loss in Python, ``mobility`` turns mobility models and traces into the trajectories the
medium places moving nodes by (``medium.mobility``; docs/mobility.md), and ``analytic`` holds the 802.11
airtime and DCF models that checks compare with (the end-to-end checks of ``harness bench
medium``, which build a network, are a bench: bench/medium_fidelity.py).

May import: ``harness.errors``, ``harness.params``, ``harness.paths``, ``harness.kernel``.
Nothing here imports the network API, traffic, experiments, analysis or papers.
"""
