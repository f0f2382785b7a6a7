"""Paper 003 (Kotsiolis, Antonopoulos, Koubias): TCP algorithms on a hybrid wired/wireless LAN.

The study's README.md says what is where; ``paper`` is what the harness reads (harness.study).
"""
