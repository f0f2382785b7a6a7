"""Paper 004 (Chen, Marsic, Miller): the optimal window on chains and ACK thinning.

The study's README.md says what is where; ``paper`` is what the harness reads (harness.study).
"""
