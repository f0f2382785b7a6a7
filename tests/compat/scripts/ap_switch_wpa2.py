#!/usr/bin/python

"""A WPA2 access point behind a switch and a controller, written the way Mininet-WiFi
examples are:

   h1 --- s1 --- ap1 ))) sta1
"""

from mininet.node import Controller
from mininet.log import setLogLevel, info
from mininet.link import TCLink
from mn_wifi.node import OVSKernelAP
from mn_wifi.cli import CLI_wifi
from mn_wifi.net import Mininet_wifi


def topology():
    "Create a network."
    net = Mininet_wifi(controller=Controller, accessPoint=OVSKernelAP)

    info("*** Creating nodes\n")
    sta1 = net.addStation('sta1', passwd='123456789a', encrypt='wpa2',
                          position='10,20,0')
    ap1 = net.addAccessPoint('ap1', ssid="simplewifi", mode="g", channel="5",
                             passwd='123456789a', encrypt='wpa2',
                             failMode="standalone", position='10,10,0')
    s1 = net.addSwitch('s1')
    h1 = net.addHost('h1', ip='10.0.0.10/8')
    c1 = net.addController('c1')

    info("*** Configuring wifi nodes\n")
    net.configureWifiNodes()

    info("*** Associating and creating links\n")
    net.addLink(sta1, ap1)
    net.addLink(ap1, s1)
    net.addLink(s1, h1, cls=TCLink, bw=10)

    info("*** Starting network\n")
    net.build()
    c1.start()
    ap1.start([c1])
    s1.start([c1])

    info("*** Running CLI\n")
    CLI_wifi(net)

    info("*** Stopping network\n")
    net.stop()


if __name__ == '__main__':
    setLogLevel('info')
    topology()
