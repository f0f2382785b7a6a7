"""pytest integration: the plugin (markers; emulation tests sent to the VM where the host
lacks mac80211_hwsim) and fixtures that build networks and run experiments.

May import everything below it: kernel, network, traffic, experiments, VM.
"""
