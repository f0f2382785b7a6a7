"""The medium: how the harness drives ``mediumd`` (the C daemon under ``mediumd/``).

``spec`` validates a medium description (propagation, fading, link overrides, walls),
``config`` turns radios and a spec into the daemon's config text (pure), ``daemon`` starts
and stops the daemon for a network, ``counters`` reduces its statistics, ``control`` is the
client of its control socket, ``pcap`` reads its capture, ``build`` compiles it, ``analytic``
holds the 802.11 airtime and DCF models that checks compare with, and ``fidelity`` runs the
end-to-end checks of ``harness bench medium``.

May import: ``harness.errors``, ``harness.kernel``; ``fidelity`` alone also uses the network
API and traffic (it builds a two-station network to measure). Nothing here imports
experiments, analysis or papers.
"""
