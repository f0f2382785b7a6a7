"""Paper 002 (Rethfeldt et al.): congestion and flow control against the ARQ retry limit in
an IEEE 802.11s mesh.

The study's README.md says what is where; ``paper`` is what the harness reads (harness.study).
"""
