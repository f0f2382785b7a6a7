"""The Debian guest: recipe and cache (image), boot and agent (machine), dispatch of commands.

Used wherever the host cannot run mac80211_hwsim natively (this machine, CI, macOS).

May import: ``harness.errors``, ``harness.paths``, ``harness.kernel`` (what the host can do),
``harness.experiment`` (a sweep sent to the guest). Only the front ends import it.
"""
