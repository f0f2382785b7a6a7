"""Compatibility with other emulators' Python APIs, so their scripts run on this harness.

``mn_wifi`` offers the part of Mininet-WiFi's API that ad hoc, mesh and access-point scripts
use (``Mininet_wifi``, ``addStation``, ``addLink(cls=adhoc|mesh)``, ``CLI``, ...), written
from its documentation and behaviour; ``mininet`` the few names of Mininet such scripts
import (``setLogLevel``, ``info``). docs/mininet-wifi.md lists what is supported and what
is refused.

May import: ``harness.errors``, ``harness.paths``, ``harness.kernel``, ``harness.medium``,
``harness.net``, ``harness.traffic``, ``harness.interactive`` (the prompt ``CLI(net)`` opens).
"""
