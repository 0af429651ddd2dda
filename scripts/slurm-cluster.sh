#!/usr/bin/env bash
# A real Slurm cluster on this machine, for `ndnlab submit slurm` and its tests:
# munged, slurmctld in the root network namespace, and one slurmd per host, each
# host a network namespace of its own on a bridge, with its own address.
#
#   scripts/slurm-cluster.sh up       # start it (idempotent), wait for idle nodes
#   scripts/slurm-cluster.sh status   # sinfo; exit 0 when every node is up
#   scripts/slurm-cluster.sh env      # the line to source: export SLURM_CONF=...
#   scripts/slurm-cluster.sh down     # stop the daemons, remove namespaces and bridge
#
# Layout (NDNLAB_SLURM_HOSTS hosts, 3 by default):
#
#   root namespace   bridge slurm-br0 10.36.0.254/24, slurmctld, munged
#   slurm-hostK      eth0 10.36.0.K/24 (veth slurm-hostK on the bridge), slurmd -N hostK
#
# Every namespace shares the file system, so the ndnlab binary and the campaign
# directory are the same paths on every host. The configuration, state, spool
# and logs are under NDNLAB_SLURM_DIR (/var/tmp/ndnlab-slurm); the commands find
# the cluster through SLURM_CONF=$NDNLAB_SLURM_DIR/slurm.conf, so a real
# /etc/slurm is never touched.
#
# What the daemons need here:
# * slurmd starts through `nsenter --net=/run/netns/NS`: `ip netns exec`
#   remounts /sys, and slurmd then finds no cgroups and exits;
# * each node declares the hardware `slurmd -C` reports (CPUs, sockets, cores,
#   threads), or slurmd complains; memory is not a consumable resource;
# * processes are tracked by /proc (proctrack/linuxproc) and tasks are not
#   bound (task/none): no cgroup plugin is involved;
# * munged runs as the munge user;
# * accounting is off (no slurmdbd); finished jobs go to the job-completion log
#   (jobcomp/filetxt), which `sacct --completion` reads.
#
# Needs root, iproute2, nsenter and Debian's slurm-wlm and munge packages.
set -euo pipefail

dir="${NDNLAB_SLURM_DIR:-/var/tmp/ndnlab-slurm}"
hosts="${NDNLAB_SLURM_HOSTS:-3}"
net=10.36.0
bridge=slurm-br0
conf="$dir/slurm.conf"
export SLURM_CONF="$conf"

die() { echo "slurm-cluster: $*" >&2; exit 1; }

need() {
    [ "$(id -u)" = 0 ] || die "needs root (it creates network namespaces and starts the Slurm daemons)"
    local t
    for t in ip nsenter munged munge slurmctld slurmd sinfo sbatch; do
        command -v "$t" >/dev/null || die "\`$t\` not found; install iproute2, util-linux and Debian's slurm-wlm and munge (apt-get install slurm-wlm munge)"
    done
}

# Every node up (idle, allocated or mixed), none down or unknown.
nodes_up() {
    local states
    states="$(sinfo --noheader --Node --format='%N %t' 2>/dev/null)" || return 1
    [ "$(printf '%s\n' "$states" | grep -cE ' (idle|alloc|mix)$')" = "$hosts" ]
}

start_munge() {
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        return
    fi
    [ -s /etc/munge/munge.key ] || {
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        chown munge:munge /etc/munge/munge.key
        chmod 400 /etc/munge/munge.key
    }
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge
    chmod 755 /run/munge
    runuser -u munge -- munged
    touch "$dir/munged.ours"
    local i
    for i in $(seq 50); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return
        sleep 0.1
    done
    die "munged does not answer (see /var/log/munge/munged.log)"
}

make_network() {
    ip link show "$bridge" >/dev/null 2>&1 || ip link add "$bridge" type bridge
    ip addr replace "$net.254/24" dev "$bridge"
    ip link set "$bridge" up
    local k ns
    for k in $(seq "$hosts"); do
        ns="slurm-host$k"
        [ -e "/run/netns/$ns" ] || ip netns add "$ns"
        if ! ip link show "$ns" >/dev/null 2>&1; then
            ip link add "$ns" type veth peer name eth0 netns "$ns"
        fi
        ip link set "$ns" master "$bridge" up
        ip -n "$ns" link set lo up
        ip -n "$ns" addr replace "$net.$k/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" route replace default via "$net.254"
    done
}

write_conf() {
    # The hardware line of `slurmd -C`, without the name and the memory.
    local hw
    hw="$(slurmd -C | head -n1 | tr ' ' '\n' | grep -vE '^(NodeName|RealMemory)=' | tr '\n' ' ')"
    {
        echo "# Written by scripts/slurm-cluster.sh: a cluster of $hosts network namespaces."
        echo "ClusterName=ndnlab"
        echo "SlurmctldHost=$(hostname -s)($net.254)"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "CredType=cred/munge"
        echo "StateSaveLocation=$dir/state"
        echo "SlurmdSpoolDir=$dir/spool/%n"
        echo "SlurmctldPidFile=$dir/slurmctld.pid"
        echo "SlurmdPidFile=$dir/slurmd.%n.pid"
        echo "SlurmctldLogFile=$dir/log/slurmctld.log"
        echo "SlurmdLogFile=$dir/log/slurmd.%n.log"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "JobCompType=jobcomp/filetxt"
        echo "JobCompLoc=$dir/jobcomp.log"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_CPU"
        echo "SchedulerType=sched/backfill"
        # Pending jobs are looked at every second, not every minute: a
        # dependent job starts soon after what it waits for.
        echo "SchedulerParameters=sched_interval=1,sched_min_interval=100000"
        echo "MpiDefault=none"
        echo "ReturnToService=2"
        # Finished jobs stay in squeue --states=all for ten minutes.
        echo "MinJobAge=600"
        echo "KillWait=5"
        local k
        for k in $(seq "$hosts"); do
            echo "NodeName=host$k NodeAddr=$net.$k ${hw}State=UNKNOWN"
        done
        echo "PartitionName=lab Nodes=host[1-$hosts] Default=YES MaxTime=INFINITE State=UP"
    } >"$conf"
}

up() {
    need
    mkdir -p "$dir"
    if [ -f "$conf" ] && nodes_up; then
        echo "slurm-cluster: up ($hosts nodes; export SLURM_CONF=$conf)"
        return
    fi
    stop_daemons
    rm -rf "$dir/state" "$dir/spool" "$dir/log"
    mkdir -p "$dir/state" "$dir/log"
    local k
    for k in $(seq "$hosts"); do mkdir -p "$dir/spool/host$k"; done
    start_munge
    make_network
    write_conf
    slurmctld -f "$conf"
    for k in $(seq "$hosts"); do
        nsenter --net="/run/netns/slurm-host$k" slurmd -f "$conf" -N "host$k"
    done
    local i
    for i in $(seq 120); do
        if nodes_up; then
            sinfo
            echo "slurm-cluster: up ($hosts nodes; export SLURM_CONF=$conf)"
            return
        fi
        sleep 0.5
    done
    sinfo --Node --long >&2 || true
    die "the nodes are not idle after 60 s (logs in $dir/log)"
}

# Ends the process whose pid is in file $1, waiting for it to exit.
stop_pidfile() {
    local f="$1" pid i
    [ -f "$f" ] || return 0
    pid="$(cat "$f")"
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
        for i in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
}

stop_daemons() {
    local f
    for f in "$dir"/slurmd.*.pid; do
        [ -e "$f" ] && stop_pidfile "$f"
    done
    stop_pidfile "$dir/slurmctld.pid"
}

down() {
    [ "$(id -u)" = 0 ] || die "needs root"
    stop_daemons
    if [ -e "$dir/munged.ours" ]; then
        stop_pidfile /run/munge/munged.pid
        rm -f "$dir/munged.ours"
    fi
    local k
    for k in $(seq "$hosts"); do
        [ -e "/run/netns/slurm-host$k" ] && ip netns delete "slurm-host$k"
    done
    ip link show "$bridge" >/dev/null 2>&1 && ip link delete "$bridge"
    rm -rf "$dir/state" "$dir/spool"
    echo "slurm-cluster: down (logs kept in $dir/log)"
}

status() {
    [ -f "$conf" ] || die "no cluster configured ($conf does not exist); run: $0 up"
    sinfo --Node --long || die "slurmctld does not answer"
    nodes_up || die "not every node is up"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    status) status ;;
    env) echo "export SLURM_CONF=$conf" ;;
    *) echo "usage: $0 up|down|status|env" >&2; exit 2 ;;
esac
