"""Paper 000 (Koutsonikolas et al., WiNTECH'07): TCP throughput and window size on a
32-router campus mesh like Purdue's MAP testbed.

The study's README.md says what is where; ``paper`` is what the harness reads (harness.study).
"""
