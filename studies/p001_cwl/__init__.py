"""Paper 001 (Chen, Xue, Nahrstedt, ICC 2003): TCP's congestion window limit on chains.

The study's README.md says what is where; ``paper`` is what the harness reads (harness.study).
"""
