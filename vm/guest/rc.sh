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
# Each share named on the kernel command line as harness.share=TAG:/guest/path[:snapshot] is
# mounted over 9p. A snapshot share (the checkout) is a copy in memory instead, made at boot,
# with its data directories bound from the share: in virtual time a guest idle while it waits
# on the host has its clock jump to its next timer (docs/vm.md, "The guest's clock"), and with
# the checkout on 9p every import Python made (it looks in each directory of its path) went to
# the host. Copied: the top-level files and every directory holding Python or C sources (the
# code). Bound from the share, read and written through: every other directory (results,
# experiments, docs, archives, outputs the host created before boot).
snapshots=""
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    harness.share=*)
      spec=${arg#harness.share=}; tag=${spec%%:*}; rest=${spec#*:}
      dir=${rest%%:*}; mode=${rest#"$dir"}
      if [ "$mode" = ":snapshot" ]; then
        mkdir -p "/run/9p/$tag" "$dir"
        mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none "$tag" "/run/9p/$tag"
        snapshots="$snapshots $tag:$dir"
      else
        mkdir -p "$dir"
        mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none "$tag" "$dir"
      fi ;;
    harness.shell=1)
      # interactive shell on the serial console (harness vm shell); power off when it exits
      ( setsid -c /bin/bash -l </dev/ttyS0 >/dev/ttyS0 2>&1; /bin/busybox poweroff -f ) & ;;
  esac
done
for spec in $snapshots; do
  tag=${spec%%:*}; dir=${spec#*:}; shared=/run/9p/$tag
  mount -t tmpfs -o size=50% tmpfs "$dir"
  for entry in "$shared"/*; do
    name=$(basename "$entry")
    if [ -d "$entry" ] && [ -z "$(find "$entry" -maxdepth 3 \( -name '*.py' -o -name '*.c' \) -print -quit)" ]; then
      mkdir -p "$dir/$name" && mount --bind "$entry" "$dir/$name"
    else
      cp -R "$entry" "$dir/"
    fi
  done
done
# Read now what runs will read later from the root disk (also the host's): Python, the tools
# and libraries the emulation starts, the kernel modules it loads.
{
  find /usr/lib/python3 /usr/lib/python3.11 -type f \( -name '*.py' -o -name '*.so' \)
  for tool in python3.11 bash ip iw iperf3 ss tc nft sysctl modprobe ping tcpdump ethtool \
              hostapd wpa_supplicant ovs-vsctl ovsdb-server ovs-vswitchd pkill setsid; do
    path=$(command -v $tool) && echo "$path" && ldd "$path" 2>/dev/null | awk '/=>/ {print $3}'
  done
  kmod=/lib/modules/$(uname -r)/kernel
  find $kmod/drivers/net/wireless/virtual $kmod/net/mac80211 $kmod/net/wireless $kmod/net/ipv4 \
       $kmod/net/sched $kmod/net/openvswitch -name '*.ko' 2>/dev/null
} | sort -u | xargs -r cat > /dev/null 2>&1
exit 0
