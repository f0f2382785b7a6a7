#!/bin/sh
# PID 1 of a UML guest (harness/vm/uml.py). The root is the host's / through hostfs, read-only.
# The kernel's command line gives, besides the seed: HX_RUN, the host folder of this run
# (job.sh, env, and what the guest writes back: status, beat), and HX_OUT, the one host folder
# the run may write (or "-"). Nothing else of the host is writeable: scratch is tmpfs.
# Writes "HX-EXIT <code>" to the status file and powers the guest off.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
fail() {
    echo "HX-INIT-FAILED $*" >/dev/console 2>/dev/null
    echo "HX-INIT-FAILED $*" >/run/hx/status.tmp 2>/dev/null && mv /run/hx/status.tmp /run/hx/status
    echo o >/proc/sysrq-trigger
    sleep 10
}
mount -t proc proc /proc || fail "mount /proc"
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null || mount -t tmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o ptmxmode=0666 devpts /dev/pts
mount -t tmpfs shm /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
# scratch: every folder a run's programs write (the host's stay untouched)
for d in /tmp /run /var/run /var/tmp /var/log /var/lib/openvswitch /etc/openvswitch \
         /var/lib/misc /etc/netns; do
    [ -d "$d" ] && ! [ -L "$d" ] && mount -t tmpfs -o mode=0755 scratch "$d"
done
chmod 1777 /tmp /var/tmp
mkdir -p /run/netns /run/hx /run/openvswitch /var/run/netns
# the run's folder, then the one writeable host folder at its own path
mount -t hostfs -o "$HX_RUN" none /run/hx || fail "mount $HX_RUN"
# host folders the job needs (the checkout, Python's prefix, the working folder), read-only,
# before the writeable folder (which may lie inside one of them): pairs of lines, host folder
# then guest folder. The job runs from fixed guest folders (/run/hx-src, ...) so that nothing
# it holds depends on where the checkout lies (not also at its own path: a checkout under /tmp
# shown inside the scratch /tmp gave other records). Always the same mounts: each program
# started draws from the guest's random state, so the count must not depend on the host.
while IFS= read -r src && IFS= read -r dst; do
    mkdir -p "$dst" && mount -r -t hostfs -o "$src" none "$dst" || fail "mount $src at $dst"
done </run/hx/show
# The checkout's code at /run/hx-src: links to its tracked top-level entries (/run/hx/src) in
# the whole checkout (/run/hx-checkout), so that what else lies in a used checkout (.venv, tool
# caches, results) is not in the listing every import reads: a longer one moved the results.
mkdir -p /run/hx-src && cd /run/hx-src || fail "mkdir /run/hx-src"
sed 's|^|/run/hx-checkout/|' /run/hx/src | tr '\n' '\0' | xargs -0 ln -s -t /run/hx-src \
    || fail "link the checkout"
cd /
# An editable install's finder (site-packages/__editable__*.pth) holds the checkout's host path,
# and every Python process loads it: its length alone moved a clone's results by 0.2-1 %
# (each syscall is a scheduling point in inf-cpu time, and a string's length moves the heap's).
# The job finds the checkout on PYTHONPATH instead, so the finder is hidden.
: >/run/hx-empty
for pth in /run/hx-prefix/lib/python3*/site-packages/__editable__*.pth; do
    if [ -e "$pth" ]; then mount --bind /run/hx-empty "$pth" || fail "hide $pth"; fi
done
if [ -n "$HX_OUT" ] && [ "$HX_OUT" != "-" ]; then
    mkdir -p "$HX_OUT" 2>/dev/null  # under a scratch tmpfs (/tmp/...): the mount point
    mount -t hostfs -o "$HX_OUT" none "$HX_OUT" || fail "mount $HX_OUT"
fi
mkdir -p /run/hx-home /var/log/openvswitch
# Every module is built in: a modprobe first on PATH says so for those the kernel has
# (modules.builtin), as the host's modprobe would for a loadable one.
mkdir -p /run/hx-bin
cat >/run/hx-bin/modprobe <<'EOF_MODPROBE'
#!/bin/sh
remove=0; names=""
for a in "$@"; do
    case "$a" in
        -r|--remove) remove=1 ;;
        -*|*=*) ;;
        *) names="$names $(echo "$a" | tr - _)" ;;
    esac
done
[ -n "$names" ] || exec /sbin/modprobe "$@"
for m in $names; do
    if ! tr - _ </run/hx/modules.builtin | grep -q "/$m\.ko\$"; then
        echo "modprobe: FATAL: Module $m not found (this UML kernel has it neither built in nor as a module)" >&2
        exit 1
    fi
done
if [ "$remove" = 1 ]; then
    echo "modprobe: FATAL: Module$names is builtin." >&2
    exit 1
fi
exit 0
EOF_MODPROBE
chmod +x /run/hx-bin/modprobe
ip link set lo up
hostname harness-uml
# heartbeat: the host's watchdog reads the guest's clock from here
( while :; do cut -d' ' -f1 /proc/uptime >/run/hx/beat.tmp && mv /run/hx/beat.tmp /run/hx/beat
  sleep 1; done ) &
# the job: its environment, its folder, its standard input (the console, or nothing)
set -a
. /run/hx/env
set +a
cd "$HX_CWD" 2>/dev/null || cd /
if [ "$HX_CONSOLE" = 1 ]; then
    setsid -c sh /run/hx/job.sh </dev/tty0 >/dev/tty0 2>&1
    rc=$?
elif [ -e /run/hx/stdin ]; then
    sh /run/hx/job.sh </run/hx/stdin >/run/hx/out 2>/run/hx/err
    rc=$?
else
    sh /run/hx/job.sh </dev/null >/run/hx/out 2>/run/hx/err
    rc=$?
fi
echo "HX-EXIT $rc" >/run/hx/status.tmp && mv /run/hx/status.tmp /run/hx/status
sync
echo o >/proc/sysrq-trigger
sleep 10
