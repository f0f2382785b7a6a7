#!/usr/bin/env python
"""Stations that move, written the way Mininet-WiFi's mobility examples are: sta1 and sta2
go in straight lines between the positions and times mobility() gives them while sta3
stands (-m: a random waypoint model moves sta1 and sta2 instead, each in its own area).

   sta1: (10,30) at 1 s -> (60,30) at 12 s      sta3 stands at (50,50)
   sta2: (10,40) at 2 s -> (25,40) at 22 s"""

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
    if '-m' in args:
        sta1 = net.addStation('sta1', ip='10.0.0.1/8', min_x=10, max_x=30,
                              min_y=50, max_y=70, min_v=5, max_v=10)
        sta2 = net.addStation('sta2', ip='10.0.0.2/8', min_x=60, max_x=70,
                              min_y=10, max_y=20, min_v=1, max_v=5)
    else:
        sta1 = net.addStation('sta1', ip='10.0.0.1/8')
        sta2 = net.addStation('sta2', ip='10.0.0.2/8')
    sta3 = net.addStation('sta3', ip='10.0.0.3/8', position='50,50,0')

    net.setPropagationModel(model="logDistance", exp=3)

    info("*** Configuring nodes\n")
    net.configureNodes()

    info("*** Creating links\n")
    for sta in (sta1, sta2, sta3):
        net.addLink(sta, cls=adhoc, intf='%s-wlan0' % sta.name, ssid='adhocNet',
                    mode='g', channel=5)

    net.plotGraph(max_x=100, max_y=100)

    if '-m' in args:
        net.setMobilityModel(time=0, model='RandomWayPoint', max_x=100, max_y=100,
                             seed=20)
    else:
        net.startMobility(time=0)
        net.mobility(sta1, 'start', time=1, position='10,30,0')
        net.mobility(sta2, 'start', time=2, position='10,40,0')
        net.mobility(sta1, 'stop', time=12, position='60,30,0')
        net.mobility(sta2, 'stop', time=22, position='25,40,0')
        net.stopMobility(time=23)

    info("*** Starting network\n")
    net.build()

    info("*** Running CLI\n")
    CLI(net)

    info("*** Stopping network\n")
    net.stop()


if __name__ == '__main__':
    setLogLevel('info')
    topology(sys.argv)
