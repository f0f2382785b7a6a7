# Login environment of the guest (harness vm shell).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PYTHONPATH=/mnt/code
export HARNESS_IN_VM=1
export PYTHONSAFEPATH=1
PS1='harness-vm:\w# '
# the host directory the shell was started from (harness.cwd= on the kernel command line)
for arg in $(cat /proc/cmdline); do
  case "$arg" in harness.cwd=*) cd "${arg#harness.cwd=}" 2>/dev/null ;; esac
done
echo "harness VM shell: the project is at /mnt/code (its code a copy made at boot: edits there are lost;"
echo "results, experiments and docs are the host's), your host directory at /mnt/cwd. 'exit' powers off."
