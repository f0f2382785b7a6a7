"""``mn_wifi.cli``: ``CLI(net)`` opens the harness's prompt on the running network (the same
commands as ``harness cli``: ``sta1 ping sta2``, ``nodes``, ``links``, ``iperf``, ``move``,
``py sta1.setPosition('40,10,0')``, ...); ``exit`` returns to the script, which then calls
``net.stop()`` as Mininet-WiFi scripts do. ``CLI(net, script=FILE)`` runs FILE's commands
instead of reading a terminal."""
from __future__ import annotations

from typing import Any, Optional

from harness.errors import HarnessError


class CLI:
    def __init__(self, net: Any, script: Optional[str] = None, **kwargs: Any):
        if kwargs:
            raise HarnessError(f"CLI: {', '.join(kwargs)} not supported; allowed: net, script")
        net.open_prompt(script)


CLI_wifi = CLI
