"""pytest integration: the plugin (markers; emulation tests sent to UML guests) and fixtures
that build networks and run experiments; the studies' test helpers.

May import everything below it: kernel, network, traffic, experiments, VM.
"""
