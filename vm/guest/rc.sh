#!/bin/sh
# Guest system init: pseudo filesystems, the host shares, an interactive console on request.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
hostname harness-vm
ip link set lo up
mkdir -p /run/netns /var/run/openvswitch
modprobe virtio_console
modprobe 9pnet_virtio
modprobe 9p
# Each share named on the kernel command line as harness.share=TAG:/guest/path is mounted.
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    harness.share=*)
      spec=${arg#harness.share=}; tag=${spec%%:*}; dir=${spec#*:}
      mkdir -p "$dir"
      mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none "$tag" "$dir" ;;
    harness.shell=1)
      # interactive shell on the serial console (harness vm shell); power off when it exits
      ( setsid -c /bin/bash -l </dev/ttyS0 >/dev/ttyS0 2>&1; /bin/busybox poweroff -f ) & ;;
  esac
done
exit 0
