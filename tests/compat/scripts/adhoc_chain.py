#!/usr/bin/env python
"""Three stations in an ad hoc network, written the way Mininet-WiFi's ad hoc examples are

    sta1 <---> sta2 <---> sta3

(-a: every station gets a 100 m range, so sta1 also reaches sta3)."""

import sys

from mininet.log import setLogLevel, info
from mn_wifi.link import wmediumd, adhoc
from mn_wifi.cli import CLI
from mn_wifi.net import Mininet_wifi
from mn_wifi.wmediumdConnector import interference


def topology(args):
    "Create a network."
    net = Mininet_wifi(link=wmediumd, wmediumd_mode=interference)

    info("*** Creating nodes\n")
    kwargs = {}
    if '-a' in args:
        kwargs['range'] = 100

    sta1 = net.addStation('sta1', ip6='fe80::1', position='10,10,0', **kwargs)
    sta2 = net.addStation('sta2', ip6='fe80::2', position='50,10,0', **kwargs)
    sta3 = net.addStation('sta3', ip6='fe80::3', position='90,10,0', **kwargs)

    net.setPropagationModel(model="logDistance", exp=4)

    info("*** Configuring nodes\n")
    net.configureNodes()

    info("*** Creating links\n")
    net.addLink(sta1, cls=adhoc, intf='sta1-wlan0', ssid='adhocNet',
                mode='g', channel=5, ht_cap='HT40+')
    net.addLink(sta2, cls=adhoc, intf='sta2-wlan0', ssid='adhocNet',
                mode='g', channel=5)
    net.addLink(sta3, cls=adhoc, intf='sta3-wlan0', ssid='adhocNet',
                mode='g', channel=5, ht_cap='HT40+')

    info("*** Starting network\n")
    net.build()

    info("\n*** Addressing...\n")
    sta1.setIP6('2001::1/64', intf="sta1-wlan0")
    sta2.setIP6('2001::2/64', intf="sta2-wlan0")
    sta3.setIP6('2001::3/64', intf="sta3-wlan0")

    info("*** Running CLI\n")
    CLI(net)

    info("*** Stopping network\n")
    net.stop()


if __name__ == '__main__':
    setLogLevel('info')
    topology(sys.argv)
