"""The Debian guest: recipe and cache (image), boot and agent (machine), dispatch of commands.

Used wherever the host cannot run mac80211_hwsim natively (this machine, CI, macOS).
"""
