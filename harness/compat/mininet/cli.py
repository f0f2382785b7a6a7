"""``mininet.cli``: ``CLI(net)``, the same prompt as ``mn_wifi.cli``."""
from harness.compat.mn_wifi.cli import CLI

__all__ = ["CLI"]
