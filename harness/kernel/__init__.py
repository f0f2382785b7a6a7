"""Kernel plumbing: everything that talks to Linux for one node or radio.

Network namespaces and their processes (``netns``), hwsim radios over generic netlink
(``hwsim``) on the mac80211 build a run asks for (``mac80211``), 802.11 settings through
``iw`` (``wireless``), 802.11s paths, peers and
metrics as the kernel reports them (``mesh``), TCP congestion modules and
sysctls (``tcp``), TCP sockets over sock_diag (``tcp_diag``), CPU placement
(``cpu_layout``), what the host can do (``host``), the names of everything a run creates
(``naming``) and the clean-up registry (``cleanup``).

May import: the standard library, pyroute2, ``harness.errors`` and each other. Nothing here
knows about topologies, the medium, experiments or papers.
"""
