# Login environment of the guest (harness vm shell).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PYTHONPATH=/mnt/code
export HARNESS_IN_VM=1
PS1='harness-vm:\w# '
[ -d /mnt/cwd ] && cd /mnt/cwd
echo "harness VM shell: the project is at /mnt/code, your host directory at /mnt/cwd. 'exit' powers off."
