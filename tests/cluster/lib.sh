# tests/cluster/lib.sh - a real Slurm GPU cluster on this host, for the
# cluster tests (bash; source it). Shaped like munge's test helpers:
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
#
#   cluster_setup BUILDDIR   temp tree (0755), munge key, configs from
#                            etc/slurm/test-cluster, budgets, free ports
#   cluster_start            munged, slurmctld, 16 slurmd; waits (polling
#                            `sinfo`, never fixed sleeps) until every node is
#                            idle, else bails out with the log tails
#   cluster_stop             cancel jobs, stop slurmd, slurmctld, stepds,
#                            job processes and munged -- by PID, found through
#                            the JT_CLUSTER_ID marker in /proc/PID/environ, so
#                            it finds exactly this cluster's processes even
#                            after a crash. Installed as an EXIT trap.
#
# Knobs (environment, set before cluster_setup):
#   JT_CLUSTER_SELECT=cons_tres|jobtree   SelectType (default cons_tres;
#                     jobtree = select/cons_tres_jobtree from the build)
#   JT_CLUSTER_BUDGETS=DIR       budget files (default etc/slurm/test-cluster/budgets)
#   JT_CLUSTER_UNFUNDED=refuse|passthrough   jobtree.conf UnfundedPolicy
#   JT_CLUSTER_SLURM_EXTRA=LINES, JT_CLUSTER_JOBTREE_EXTRA=LINES   appended
#                     to slurm.conf / jobtree.conf
#   JT_CLUSTER_CRED_EXPIRE=S     AuthInfo cred_expire (a requeued batch job
#                     waits cred_expire + 1 s before it may start again)
#   JT_CLUSTER_VALGRIND=1        run slurmctld under valgrind (log/valgrind.*)
#   JT_CLUSTER_KEEP=1            keep the directory after cluster_stop
#   JT_CLUSTER_DEBUG=info|debug  SlurmctldDebug
#   JT_CLUSTER_LEDGER=0|1        run jobtree-ledgerd (default 1 with
#                     JT_CLUSTER_SELECT=jobtree, else 0): socket, ledger and
#                     spool under the cluster dir, LedgerSocket/LedgerSpoolDir/
#                     LedgerDir in jobtree.conf
#   JT_CLUSTER_SLURMDBD=1        accounting through a private slurmdbd: a
#                     mariadbd (own datadir, socket and port under db/) and
#                     a slurmdbd (own DbdPort), started before slurmctld;
#                     slurm.conf gets accounting_storage/slurmdbd, and the
#                     cluster is added with sacctmgr. Needs the packages
#                     slurmdbd and mariadb-server (CI installs neither; only
#                     tests/cluster/preempt-compare.sh's stock-qos uses it).
#   JT_CLUSTER_SACCTMGR=LINES    with it: `sacctmgr -i LINE` for each line
#                     ("add qos low"), before slurmctld starts (so it loads
#                     the records at start)
# After cluster_setup: JT_CLUSTER_DIR, SLURM_CONF (exported for clients);
# with the ledger also JT_LEDGER_DIR (exported) and JT_LEDGER_SOCKET.
# TMPDIR is exported as $JT_CLUSTER_DIR/tmp until cluster_stop (which puts
# the caller's back): sbatch, srun and salloc pass it to the job, so what
# jobs leave in $TMPDIR (the SPANK layout's jobtree-layout-<jobid>.json,
# which the job keeps) goes with the cluster's directory, not into /tmp.
# Ledger helpers: ledger_start, ledger_stop, jobtree_cli ARGS (the build's
# jobtree), ledger_settled N (wait until the ledger holds N events),
# ledger_payloads, ledger_seq_of TYPE, ledger_forged OUT SED (a re-chained
# forgery for `jobtree verify`), ledger_resv_of JOB, ledger_resv_nodes JOB
# and ledger_resv_time JOB (run JOB's last ReservationCreate: its id, its
# nodes, its creation time).
# Job helpers: submit, job_field, wait_job_state, queue_empty; ctld_pid and
# ctld_gone for tests that kill and restart slurmctld (daemon_pid NAME and
# daemon_gone NAME for any of the cluster's daemons).
# Shared setups: east_budgets, activation_cluster, east_filled (a plain job
# on D, four one-node runs on C: t2050, t2058), cluster_has_blocks and
# cluster_use_blocks (topology/block), drop_fabric_domains and
# topology_domains_run (domains from the topology alone).
#
# TAP: plan N, ok COND-STATUS MSG, is GOT WANT MSG, like GOT REGEX MSG,
# diag, bail_out, done_testing.

JT_SRCDIR=${JT_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
JT_NNODES=16
# Slurm's own plugins: Debian's directory (slurm-wlm), else upstream's
# (slurm: the 26.05 root of contrib/sid, built from source).
if [ -z "${JT_STOCK_PLUGINDIR:-}" ]; then
    JT_STOCK_PLUGINDIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
    [ -f "$JT_STOCK_PLUGINDIR/select_cons_tres.so" ] ||
        [ ! -f /usr/lib/x86_64-linux-gnu/slurm/select_cons_tres.so ] ||
        JT_STOCK_PLUGINDIR=/usr/lib/x86_64-linux-gnu/slurm
fi

##
# TAP (tests/tap/tap.sh); bail_out also shows the cluster's logs
##
. "$JT_SRCDIR/tests/tap/tap.sh"
bail_out () {
    echo "Bail out! $*"
    [ -n "${JT_CLUSTER_DIR:-}" ] && cluster_log_tails >&2
    exit 255
}

##
# Setup
##

# Local TCP ports of every socket on this host (any state; LISTEN only with
# the argument 0A), in decimal. /proc has them in hex; Debian's awk (mawk)
# has no strtonum, so bash converts.
ports_in_use () {
    local h
    for h in $(awk -v st="${1:-}" 'NR > 1 && (st == "" || $4 == st) {
                   split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u); do
        echo $((16#$h))
    done
}

# A TCP port range [base, base+n] that no socket uses (checked in /proc) and
# that lies below the kernel's ephemeral range: an outgoing connection (an
# RPC of slurmctld, srun, the previous test's teardown) takes its local port
# from that range, and a slurmd whose port was taken that way fails to bind
# and never registers (the "gpu08 unknown*" start-up flake). Ports below the
# range are only ever taken by an explicit bind.
#
# Two suites that run at once on one host (CI runs the 22.05 suite on the
# host and the 24.11 suite in the trixie chroot side by side, sharing the
# network namespace) would otherwise race between this check and the
# daemons' bind: JT_CLUSTER_PORT_LANE=k of JT_CLUSTER_PORT_LANES=n gives a
# suite only the 20-port slots whose number is k modulo n, so concurrent
# suites in different lanes can never pick the same ports.
_free_ports () {
    local n=$1 base tries=0 used p busy lo top slots
    local lanes=${JT_CLUSTER_PORT_LANES:-1} lane=${JT_CLUSTER_PORT_LANE:-0}
    case "$lanes$lane" in *[!0-9]*) echo "JT_CLUSTER_PORT_LANE(S) must be numbers" >&2; return 1 ;; esac
    [ "$lanes" -ge 1 ] && [ "$lanes" -le 8 ] && [ "$lane" -lt "$lanes" ] ||
        { echo "JT_CLUSTER_PORT_LANE=$lane of JT_CLUSTER_PORT_LANES=$lanes: need 0 <= lane < lanes <= 8" >&2; return 1; }
    read -r lo _ < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
    top=$(( lo - n - 1 ))
    [ "$top" -gt 20000 ] || { echo "ephemeral ports start at $lo: no room below" >&2; return 1; }
    slots=$(( (top - 20000) / 20 / lanes ))
    [ "$slots" -ge 1 ] || { echo "no port slot below $lo in lane $lane of $lanes" >&2; return 1; }
    used=$(ports_in_use)
    while [ $tries -lt 50 ]; do
        base=$(( 20000 + ((RANDOM % slots) * lanes + lane) * 20 ))   # unusual, < lo
        busy=0
        for p in $(seq "$base" $((base + n))); do
            if grep -qx "$p" <<< "$used"; then busy=1; break; fi
        done
        [ $busy -eq 0 ] && { echo "$base"; return 0; }
        tries=$((tries + 1))
    done
    return 1
}

_subst () {     # _subst IN OUT: fill @VARS@ from the _sub_* variables
    sed -e "s|@DIR@|$JT_CLUSTER_DIR|g" \
        -e "s|@CTLD_PORT@|$_sub_ctld_port|g" \
        -e "s|@PLUGINDIR@|$_sub_plugindir|g" \
        -e "s|@SELECT_TYPE@|$_sub_select|g" \
        -e "s|@DEBUG@|${JT_CLUSTER_DEBUG:-info}|g" \
        -e "s|@SCHED_EXTRA@|${JT_CLUSTER_SCHED_EXTRA:-}|g" \
        -e "s|@SPANK_SO@|$_sub_spank|g" \
        -e "s|@UNFUNDED_POLICY@|${JT_CLUSTER_UNFUNDED:-refuse}|g" \
        -e "/@NODES@/{r $JT_CLUSTER_DIR/etc/nodes.conf" -e "d}" \
        "$1" > "$2"
}

# Domain of node i (1-based): 4 nodes per domain A..D; A,B west, C,D east.
# A test may add features to node gpuNN with JT_CLUSTER_FEATURES_gpuNN
# ("gpu.mem=80,nic.fw=22"), set before cluster_setup.
_node_features () {
    local i=$1 d r extra
    d=$(printf "\\x$(printf %x $((65 + (i - 1) / 4)))")
    if [ $(( (i - 1) / 4 )) -lt 2 ]; then r=west; else r=east; fi
    eval "extra=\${JT_CLUSTER_FEATURES_$(printf gpu%02d "$i"):-}"
    echo "fabric.domain=$d,region=$r,cluster=c1,rack=r$(( (i - 1) / 2 + 1 ))${extra:+,$extra}"
}

# A budgets directory (echoed; cluster_setup copies it, so the caller
# removes it) with, for each OWNER:C argument, one budget file of OWNER
# holding one h100 envelope <owner>-east: selector region=east, 2026-2031,
# concurrency C. The activation tests' budgets.
east_budgets () {
    local dir o
    dir=$(mktemp -d /tmp/jt-east-budgets.XXXXXX) || bail_out "mktemp"
    for o in "$@"; do
        cat > "$dir/${o%%:*}.json" <<JSON
{ "owner": "${o%%:*}",
  "envelopes": [ { "name": "${o%%:*}-east", "flavor": "h100",
                   "selector": { "region": "east" },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": ${o##*:} } ] }
JSON
    done
    echo "$dir"
}

# cluster_has_blocks: this Slurm has topology/block (24.05 and later).
# cluster_use_blocks, between cluster_setup and cluster_start: the same
# 4 x 4 nodes as topology/block base blocks blkA..blkD (BlockSizes 4,8,16)
# instead of topology/tree's leaf switches domA..domD; bails out on a
# Slurm without topology/block.
cluster_has_blocks () {
    case "$(slurmctld -V 2>/dev/null)" in *" 2"[4-9].*) return 0 ;; esac
    return 1
}
# cluster_has_topology_yaml: this Slurm reads topology.yaml (25.05 and
# later). cluster_use_topology_yaml, between cluster_setup and
# cluster_start: stdin as the cluster's topology.yaml (topology.conf is
# then ignored: topology.yaml.5).
cluster_has_topology_yaml () {
    case "$(slurmctld -V 2>/dev/null)" in *" 2"[5-9].*|*" "[3-9][0-9].*) return 0 ;; esac
    return 1
}
cluster_use_topology_yaml () {
    cluster_has_topology_yaml || bail_out "topology.yaml needs Slurm 25.05 or later ($(slurmctld -V 2>/dev/null))"
    cat > "$JT_CLUSTER_DIR/etc/topology.yaml"
}
cluster_use_blocks () {
    cluster_has_blocks || bail_out "topology/block needs Slurm 24.05 or later ($(slurmctld -V 2>/dev/null))"
    sed -i 's|^TopologyPlugin=.*|TopologyPlugin=topology/block|' "$JT_CLUSTER_DIR/etc/slurm.conf"
    { echo "BlockName=blkA Nodes=gpu[01-04]"
      echo "BlockName=blkB Nodes=gpu[05-08]"
      echo "BlockName=blkC Nodes=gpu[09-12]"
      echo "BlockName=blkD Nodes=gpu[13-16]"
      echo "BlockSizes=4,8,16"; } > "$JT_CLUSTER_DIR/etc/topology.conf"
}

# activation_cluster BUILDDIR OWNER:C...: a Jobtree cluster whose
# reservations activate (preempt/jobtree with PreemptMode=REQUEUE, MaxWait
# 20 s, a requeued job restarting after cred_expire 10 + 1 s), budgets
# east_budgets OWNER:C..., set up and started (t2050, t2052).
activation_cluster () {
    local build=${1:?activation_cluster BUILDDIR OWNER:C...} bud
    shift
    bud=$(east_budgets "$@")
    JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$bud JT_CLUSTER_CRED_EXPIRE=10 \
    JT_CLUSTER_SLURM_EXTRA="PreemptType=preempt/jobtree
PreemptMode=REQUEUE" JT_CLUSTER_JOBTREE_EXTRA="MaxWait=20s" \
        cluster_setup "$build"
    rm -rf "$bud"     # copied into the cluster's directory
    cluster_start
}

# east_filled [SBATCH-OPTION...]: east full, as t2050 and t2058 start
# (an activation_cluster with team-b and team-d): a plain 4-node job on D
# ($plain) and four one-node runs on C, two of team-b then two of team-d
# (${victims[@]}), each running; the options go to the four runs (e.g.
# --checkpoint=10m). A run sleeps 600 s the first time and 1 s once
# requeued (SLURM_RESTART_COUNT).
east_filled () {
    local acct j
    plain=$(submit -N4 --exclusive --constraint=fabric.domain=D -t 10 --wrap "sleep 600")
    wait_job_state "$plain" RUNNING 15 || bail_out "the plain job does not start"
    victims=()
    for acct in team-b team-b team-d team-d; do
        victims+=("$(submit --account=$acct -N1 --gres=gpu:h100:8 --group-gpus=8 "$@" \
                     --constraint=fabric.domain=C -t 10 --wrap \
                     'if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then sleep 1; else sleep 600; fi')")
    done
    for j in "${victims[@]}"; do
        wait_job_state "$j" RUNNING 15 || bail_out "victim candidate $j does not start"
    done
}

cluster_setup () {
    local build=${1:?cluster_setup BUILDDIR}
    local tpl=$JT_SRCDIR/etc/slurm/test-cluster base i n so
    build=$(cd "$build" && pwd) || bail_out "no build directory $1"
    JT_BUILDDIR=$build
    for so in plugins/spank/.libs/jobtree_spank.so \
              plugins/job_submit/.libs/job_submit_jobtree.so; do
        [ -f "$build/$so" ] || bail_out "$build/$so not built (configure --with-slurm-source)"
    done
    for cmd in slurmctld slurmd munged mungekey sbatch scontrol sinfo; do
        command -v $cmd >/dev/null || bail_out "$cmd not installed (apt-get install slurmctld slurmd slurm-client munge)"
    done
    JT_CLUSTER_DIR=$(mktemp -d /tmp/jt-cluster.XXXXXX) || bail_out "mktemp"
    chmod 0755 "$JT_CLUSTER_DIR"    # munged wants world-searchable parents
    mkdir -p "$JT_CLUSTER_DIR"/{etc,state,spool,run,log,munge,dev,plugins,budgets,tmp}
    chmod 0755 "$JT_CLUSTER_DIR/munge"   # the socket dir must be searchable by all
    chmod 1777 "$JT_CLUSTER_DIR/tmp"     # the jobs' TMPDIR, like /tmp
    if [ "${TMPDIR+set}" = set ]; then _jt_tmpdir_was=$TMPDIR; else unset _jt_tmpdir_was; fi
    export TMPDIR=$JT_CLUSTER_DIR/tmp
    trap cluster_stop EXIT
    trap 'exit 130' INT TERM

    # With slurmdbd two more ports of the same 20-port slot: base+17, +18.
    base=$(_free_ports $((JT_NNODES + 1 + $(_dbd_nports)))) || bail_out "no free port range"
    _sub_ctld_port=$base
    : > "$JT_CLUSTER_DIR/etc/nodes.conf"
    for i in $(seq 1 $JT_NNODES); do
        n=$(printf "gpu%02d" "$i")
        echo "NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + i)) Features=$(_node_features "$i")" \
            >> "$JT_CLUSTER_DIR/etc/nodes.conf"
    done
    for i in 0 1 2 3 4 5 6 7; do ln -s /dev/null "$JT_CLUSTER_DIR/dev/gpu$i"; done

    # Our plugins next to the stock ones: PluginDir lists both, ours first.
    # Slurm loads a plugin from the first directory that has its file, so
    # this build's plugins win over any installed in the stock directory
    # (make install, the jobtree-slurm-plugins package).
    ln -s "$build/plugins/job_submit/.libs/job_submit_jobtree.so" "$JT_CLUSTER_DIR/plugins/"
    _sub_select=select/cons_tres
    if [ "${JT_CLUSTER_SELECT:-cons_tres}" = jobtree ]; then
        so=$build/plugins/select/.libs/select_cons_tres_jobtree.so
        [ -f "$so" ] || bail_out "$so not built"
        ln -s "$so" "$JT_CLUSTER_DIR/plugins/"
        so=$build/plugins/preempt/.libs/preempt_jobtree.so
        [ -f "$so" ] && ln -s "$so" "$JT_CLUSTER_DIR/plugins/"
        _sub_select=select/cons_tres_jobtree
    fi
    _sub_plugindir=$JT_CLUSTER_DIR/plugins:$JT_STOCK_PLUGINDIR
    _sub_spank=$build/plugins/spank/.libs/jobtree_spank.so

    _subst "$tpl/slurm.conf.in" "$JT_CLUSTER_DIR/etc/slurm.conf"
    _subst "$tpl/gres.conf.in" "$JT_CLUSTER_DIR/etc/gres.conf"
    _subst "$tpl/plugstack.conf.in" "$JT_CLUSTER_DIR/etc/plugstack.conf"
    _subst "$tpl/jobtree.conf.in" "$JT_CLUSTER_DIR/etc/jobtree.conf"
    cp "$tpl/topology.conf" "$JT_CLUSTER_DIR/etc/topology.conf"
    # Slurm 24.11's slurmd starts a cgroup plugin whatever ProctrackType and
    # TaskPlugin say, and fails without a cgroup file system (a chroot):
    # this cluster needs none (docs/slurm-24.11.md).
    case "$(slurmd -V 2>/dev/null)" in
    *" 2"[4-9].*) echo "CgroupPlugin=disabled" > "$JT_CLUSTER_DIR/etc/cgroup.conf" ;;
    esac
    # A test's own lines (e.g. PreemptType=..., MaxWait=...), one per line.
    [ -n "${JT_CLUSTER_SLURM_EXTRA:-}" ] \
        && printf '%s\n' "$JT_CLUSTER_SLURM_EXTRA" >> "$JT_CLUSTER_DIR/etc/slurm.conf"
    [ -n "${JT_CLUSTER_CRED_EXPIRE:-}" ] \
        && sed -i "s|^AuthInfo=.*|&,cred_expire=$JT_CLUSTER_CRED_EXPIRE|" "$JT_CLUSTER_DIR/etc/slurm.conf"
    [ -n "${JT_CLUSTER_JOBTREE_EXTRA:-}" ] \
        && printf '%s\n' "$JT_CLUSTER_JOBTREE_EXTRA" >> "$JT_CLUSTER_DIR/etc/jobtree.conf"
    # Decided afresh for each cluster (a script may start several, with
    # different SelectTypes): JT_CLUSTER_LEDGER itself is never assigned.
    JT_CLUSTER_LEDGER_ON=${JT_CLUSTER_LEDGER:-$([ "${JT_CLUSTER_SELECT:-}" = jobtree ] && echo 1 || echo 0)}
    if [ "$JT_CLUSTER_LEDGER_ON" = 1 ]; then
        [ -x "$build/src/ledgerd/jobtree-ledgerd" ] || bail_out "jobtree-ledgerd not built"
        mkdir -p -m 0700 "$JT_CLUSTER_DIR/ledger" "$JT_CLUSTER_DIR/ledger-spool"
        export JT_LEDGER_DIR=$JT_CLUSTER_DIR/ledger
        JT_LEDGER_SOCKET=$JT_CLUSTER_DIR/run/ledgerd.sock
        { echo "LedgerSocket=$JT_LEDGER_SOCKET"
          echo "LedgerSpoolDir=$JT_CLUSTER_DIR/ledger-spool"
          echo "LedgerDir=$JT_LEDGER_DIR"; } >> "$JT_CLUSTER_DIR/etc/jobtree.conf"
    fi
    _dbd_setup "$base"
    cp "${JT_CLUSTER_BUDGETS:-$tpl/budgets}"/*.json "$JT_CLUSTER_DIR/budgets/"
    export SLURM_CONF=$JT_CLUSTER_DIR/etc/slurm.conf

    mungekey -c -k "$JT_CLUSTER_DIR/munge/munge.key" 2>/dev/null \
        || bail_out "mungekey failed"
}

##
# Start / wait
##

# Start a daemon marked with JT_CLUSTER_ID, detached, without inherited fds.
_spawn () {
    local log=$1; shift
    ( exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
      setsid env JT_CLUSTER_ID="$JT_CLUSTER_DIR" SLURM_CONF="$SLURM_CONF" "$@" \
          </dev/null >>"$log" 2>&1 & )
}

cluster_log_tails () {
    local f
    for f in "$JT_CLUSTER_DIR"/log/slurmctld.log "$JT_CLUSTER_DIR"/log/munged.log \
             "$JT_CLUSTER_DIR"/log/slurmctld.out "$JT_CLUSTER_DIR"/log/slurmdbd.log; do
        [ -f "$f" ] || continue
        echo "== tail $f"
        tail -n 15 "$f"
    done
}

# Poll CMD until it succeeds, every 0.1 s, at most SECS seconds. CMD's
# arguments are expanded once, by the caller: put a changing condition in a
# function (or eval a quoted string). On timeout it says (TAP diag) what it
# waited for and what it saw: CMD run once more, traced, with its output.
wait_for () {
    local secs=$1; shift
    local end=$(( $(date +%s%N) / 1000000 + secs * 1000 ))
    until "$@" >/dev/null 2>&1; do
        if [ $(( $(date +%s%N) / 1000000 )) -ge $end ]; then
            _wait_report "$secs" "$@"
            return 1
        fi
        sleep 0.1
    done
}
_wait_report () {
    local secs=$1 seen; shift
    seen=$("$@" 2>&1 | tail -n 20)
    # a silent condition: show its last traced steps (the values it tested)
    [ -n "$seen" ] || seen=$( { set -x; "$@"; } 2>&1 >/dev/null | tail -n 6 )
    diag "wait_for: gave up after ${secs}s waiting for: $*"
    diag "$(sed 's/^/  saw: /' <<< "${seen:-(nothing)}")"
}

# log_has FILE TEXT: FILE holds TEXT; if not, print its last lines.
log_has () {
    grep -F -- "$2" "$1" 2>/dev/null && return 0
    echo "no '$2' in $1; it ends with:"
    tail -n 3 "$1" 2>&1
    return 1
}

# job_field_like ID FIELD REGEX: print the field, succeed when it matches
# (a wait_for condition that shows what it saw).
job_field_like () {
    local v
    v=$(job_field "$1" "$2")
    echo "job $1 $2=$v"
    printf '%s' "$v" | grep -Eq -- "$3"
}

# Every node idle; prints the ones that are not (for wait_for's report).
_all_idle () {
    local busy
    busy=$(sinfo -h -N -o '%N %T' 2>&1 | sort -u | grep -v ' idle$')
    [ -n "$busy" ] && echo "not idle: $(tr '\n' ' ' <<< "$busy")"
    [ "$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)" -eq $JT_NNODES ]
}

# slurmd of node N, marked, its output in log/slurmd-N.out and its exit
# status in run/slurmd-N.status once it exits (so a slurmd that died at
# start says how).
_spawn_slurmd () {
    local n=$1 d=$JT_CLUSTER_DIR
    rm -f "$d/run/slurmd-$n.status"
    _spawn "$d/log/slurmd-$n.out" bash -c '"$@"; echo "exit status $?" > "$0"' \
        "$d/run/slurmd-$n.status" slurmd -D -f "$SLURM_CONF" -N "$n"
}

# Why the cluster did not come up: every node that is not idle, with its
# state, whether its slurmd runs, its exit status and its own logs.
_report_not_up () {
    local line n st p pid
    while read -r n st; do
        [ "$st" = idle ] && continue
        pid=
        for p in $(daemon_pid slurmd); do
            tr '\0' ' ' < "/proc/$p/cmdline" | grep -q -- "-N $n " && pid=$p
        done
        echo "== node $n is $st; slurmd: ${pid:+running (pid $pid)}$( [ -z "$pid" ] && { cat "$JT_CLUSTER_DIR/run/slurmd-$n.status" 2>/dev/null || echo 'not running, no exit status'; })"
        for line in "$JT_CLUSTER_DIR/log/slurmd-$n.log" "$JT_CLUSTER_DIR/log/slurmd-$n.out"; do
            [ -s "$line" ] && { echo "== tail $line"; tail -n 10 "$line"; }
        done
        grep -F "$n" "$JT_CLUSTER_DIR/log/slurmctld.log" 2>/dev/null | tail -n 5 \
            | sed 's/^/   slurmctld.log: /'
    done < <(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
}

# jobtree-ledgerd in the foreground, marked like the other daemons.
_ledgerd_up () { [ -S "$JT_LEDGER_SOCKET" ] && [ -n "$(daemon_pid jobtree-ledgerd)" ]; }
ledger_start () {
    [ "${JT_CLUSTER_LEDGER_ON:-0}" = 1 ] || return 0
    _spawn "$JT_CLUSTER_DIR/log/ledgerd.out" "$JT_BUILDDIR/src/ledgerd/jobtree-ledgerd" \
        -F -d "$JT_LEDGER_DIR" -S "$JT_LEDGER_SOCKET" -u root \
        -L "$JT_CLUSTER_DIR/log/ledgerd.log"
    wait_for 10 _ledgerd_up || bail_out "jobtree-ledgerd did not start: $(tail -n 5 "$JT_CLUSTER_DIR"/log/ledgerd.*)"
}
ledger_stop () {    # ledger_stop [SIG]
    local p
    for p in $(daemon_pid jobtree-ledgerd); do kill "-${1:-TERM}" "$p" 2>/dev/null; done
    wait_for 10 daemon_gone jobtree-ledgerd
}
jobtree_cli () { "$JT_BUILDDIR/src/cli/jobtree" "$@"; }
# Run JOB's last ReservationCreate in the ledger (one payload; fails when
# there is none yet), and from it: the reservation id, its nodes
# (comma-separated) and its creation time (epoch seconds).
_ledger_resv () {
    local r
    r=$(grep -h '"type":"ReservationCreate"' "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null \
        | grep "\"run\":\"jtc:$1\"" | tail -n1)
    [ -n "$r" ] && echo "$r"
}
ledger_resv_of () {
    _ledger_resv "$1" | grep -o '"reservation":"[^"]*"' | cut -d'"' -f4 | grep .
}
ledger_resv_nodes () {
    _ledger_resv "$1" | grep -o '"nodes":\[[^]]*\]' | grep -o 'gpu[0-9]*' | paste -sd, - | grep .
}
ledger_resv_time () {
    _ledger_resv "$1" | grep -o '"time":[0-9]*' | cut -d: -f2 | grep .
}
# Events in the ledger (one per record), 0 if none yet.
ledger_count () {
    cat "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null | wc -l
}
_ledger_has () {
    local n
    n=$(ledger_count)
    echo "ledger holds $n events, want $1"
    [ "$n" -ge "$1" ]
}
# Wait until the ledger holds at least N events (at most SECS, default 30).
ledger_settled () { wait_for "${2:-30}" _ledger_has "$1"; }
# The cluster's ledger as payloads, one a line, in seq order (every segment).
ledger_payloads () {
    cat "$JT_LEDGER_DIR"/ledger-*.jtl 2>/dev/null \
        | sed -E 's/^JT1 [0-9]+ [0-9a-f]{64} [0-9]+ //; s/ [0-9a-f]{64}$//'
}
# ledger_forged OUT SED: the cluster's ledger with each payload edited by
# SED (a sed -E script), chained again from genesis into the one segment
# OUT by an independent writer (sha256sum(1), docs/ledger-format.md, as
# tests/ledger/lib.sh): a forgery whose chain holds, that only the fold's
# own rules (the lottery recomputed, ...) can tell from the real thing.
ledger_forged () {
    local out=$1 prev n=1 p body
    prev=$(printf '0%.0s' $(seq 64))
    : > "$out"
    while IFS= read -r p; do
        body="JT1 $n $prev $(printf '%s' "$p" | wc -c) $p"
        prev=$(printf '%s' "$body" | sha256sum | cut -c1-64)
        printf '%s %s\n' "$body" "$prev" >> "$out"
        n=$((n + 1))
    done < <(ledger_payloads | sed -E "$2")
}
# The seq of the ledger's first event of TYPE (its line among the payloads).
ledger_seq_of () { ledger_payloads | grep -n -m1 "\"type\":\"$1\"" | cut -d: -f1; }
# verify_lottery_checks VERIFY_OUT SEED: two TAP tests that `jobtree
# verify` (whose output is VERIFY_OUT) recomputed the one lottery slurmctld
# drew, seed SEED ("seed":"<16 hex>"): its count equals the activations
# slurmctld's log says it drew (each once), and the same ledger with that
# seed replaced everywhere (the victims' Ends agree with it), chained again,
# fails at the Activation, whose lottery that seed is not.
verify_lottery_checks () {
    local drawn aseq forged
    drawn=$(grep -Ec "reservation jtc:[0-9]+:resv:[0-9]+ (activates|reclaims) " \
            "$JT_CLUSTER_DIR/log/slurmctld.log")
    is "$(grep -o 'lotteries [0-9]* recomputed' <<< "$1") (slurmctld drew $drawn)" \
       "lotteries 1 recomputed (slurmctld drew 1)" \
       "verify recomputed as many lotteries as slurmctld drew activations (one)"
    aseq=$(ledger_seq_of Activation)
    ledger_forged "$JT_CLUSTER_DIR/forged.jtl" "s/${2#*:}/\"0123456789abcdef\"/g"
    forged=$(jobtree_cli verify "$JT_CLUSTER_DIR/forged.jtl" 2>&1)
    is "$(head -n1 <<< "$forged" | cut -d: -f1)" "FAIL lottery at seq $aseq" \
       "verify recomputes the lottery: a forged seed fails at the Activation (seq $aseq)"
}

# jobs_completed N JOB...: true when N of the JOBs are COMPLETED (a
# predicate for wait_for).
jobs_completed () {
    local want=$1 j n=0
    shift
    for j in "$@"; do
        [ "$(job_field "$j" JobState)" = COMPLETED ] && n=$((n + 1))
    done
    [ "$n" = "$want" ]
}

# activation_victims_rerun TIMEOUT N PLAIN SEED JOB...: after an
# activation's lottery over JOBs (the runs it could take; SEED its
# "seed":"<hex>"), the ones not requeued are cancelled and N of them must
# run again and complete within TIMEOUT seconds; then PLAIN (a job beside
# them) is cancelled and `jobtree verify` must accept the ledger and
# recompute the lottery (verify_lottery_checks). Four TAP tests; t2041 and
# t2050.
activation_victims_rerun () {
    local timeout=$1 want=$2 plain=$3 seed=$4 j out
    shift 4
    for j in "$@"; do
        [ "$(job_field "$j" Restarts)" -ge 1 ] 2>/dev/null || scancel "$j"
    done
    wait_for "$timeout" jobs_completed "$want" "$@"
    ok $? "the $want requeued runs start again later and complete"
    scancel "$plain"
    wait_for 30 queue_empty
    out=$(jobtree_cli verify "$JT_LEDGER_DIR" 2>&1)
    ok $? "jobtree verify accepts the ledger and its lottery: $(tail -n1 <<< "$out")"
    verify_lottery_checks "$out" "$seed"
}

##
# Accounting (JT_CLUSTER_SLURMDBD=1): a private mariadbd and slurmdbd
##

# qos_high_preempts_low: slurmctld holds QOS low and high (loaded from
# slurmdbd at its start), high's PreemptMode requeue, and slurmdbd says
# high preempts low (prints what it saw). preempt-compare.sh's stock-qos,
# compare.sh's stock-switches-qos.
qos_high_preempts_low () {
    local q p
    q=$(scontrol -o show assoc_mgr flags=qos 2>&1 | grep -E '^QOS=(low|high)\(' \
        | sed 's/ UsageRaw=.* PreemptMode=/ PreemptMode=/; s/ Priority=.*//' | tr '\n' ' ')
    p=$(sacctmgr -n -P show qos high format=preempt 2>&1)
    echo "slurmctld's QOS: $q; slurmdbd: high preempts '$p'"
    grep -q 'QOS=low(' <<< "$q" && grep -q 'QOS=high([0-9]*) PreemptMode=REQUEUE' <<< "$q" \
        && [ "$p" = low ]
}


# Decided afresh for each cluster by cluster_setup, like the ledger (the
# knobs themselves are never assigned, and a script may set them for
# cluster_setup alone): JT_CLUSTER_DBD_ON. Nothing here runs without it.
_dbd_nports () { if [ "${JT_CLUSTER_SLURMDBD:-0}" = 1 ]; then echo 2; else echo 0; fi; }
_dbd_on () { [ "${JT_CLUSTER_DBD_ON:-0}" = 1 ]; }

# _dbd_setup BASE (cluster_setup): the database's and slurmdbd's files and
# ports (BASE + 17, BASE + 18: the cluster's own port slot, checked free by
# _free_ports), slurmdbd.conf (mode 0600, as slurmdbd demands) and
# slurm.conf's accounting lines.
_dbd_setup () {
    local base=$1 d=$JT_CLUSTER_DIR cmd
    JT_CLUSTER_DBD_ON=0
    [ "${JT_CLUSTER_SLURMDBD:-0}" = 1 ] || return 0
    JT_CLUSTER_DBD_ON=1
    JT_DBD_SACCTMGR=${JT_CLUSTER_SACCTMGR:-}
    for cmd in slurmdbd sacctmgr mariadbd mariadb-install-db mariadb mariadb-admin; do
        command -v $cmd >/dev/null \
            || bail_out "JT_CLUSTER_SLURMDBD=1: $cmd not installed (apt-get install --no-install-recommends slurmdbd mariadb-server)"
    done
    JT_DBD_PORT=$((base + JT_NNODES + 1))
    JT_DB_PORT=$((base + JT_NNODES + 2))
    JT_DB_SOCKET=$d/db/mysqld.sock
    JT_DBD_CLUSTER=$(sed -n 's/^ClusterName=//p' "$d/etc/slurm.conf" | tail -n 1)
    [ -n "$JT_DBD_CLUSTER" ] || bail_out "$d/etc/slurm.conf: no ClusterName (slurmdbd needs one)"
    mkdir -p -m 0700 "$d/db" "$d/db/tmp"
    # The database user's password: random, only in slurmdbd.conf (0600).
    JT_DB_PASS=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
    ( umask 077
      cat > "$d/etc/slurmdbd.conf" <<CONF
# slurmdbd.conf of this test cluster (tests/cluster/lib.sh, JT_CLUSTER_SLURMDBD=1)
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
DbdHost=localhost
DbdPort=$JT_DBD_PORT
SlurmUser=root
DebugLevel=info
LogFile=$d/log/slurmdbd.log
PidFile=$d/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$JT_DB_PORT
StorageUser=slurm
StoragePass=$JT_DB_PASS
StorageLoc=slurm_acct_db
CONF
    )
    sed -i 's|^AccountingStorageType=.*|AccountingStorageType=accounting_storage/slurmdbd|' "$d/etc/slurm.conf"
    # AccountingStoragePass names the munge socket of connections to
    # slurmdbd (they do not use AuthInfo's; without it: "REQUEST_PERSIST_INIT
    # has authentication error" against the system's munged).
    { echo "AccountingStorageHost=localhost"
      echo "AccountingStoragePort=$JT_DBD_PORT"
      echo "AccountingStoragePass=$d/munge/munge.socket"; } >> "$d/etc/slurm.conf"
}

# The private server answers on its socket (root through unix_socket
# authentication, as mariadb-install-db sets it up).
_db_sql () { mariadb --no-defaults -S "$JT_DB_SOCKET" -u root -N -B -e "$1"; }
_db_up () { mariadb-admin --no-defaults -S "$JT_DB_SOCKET" -u root ping; }
# slurmdbd listens on its port (it opens it once its tables exist).
_dbd_listening () {
    ports_in_use 0A | grep -qx "$JT_DBD_PORT" && [ -n "$(daemon_pid slurmdbd)" ]
}
# sacctmgr lists the cluster (prints what it saw, for wait_for's report).
_dbd_has_cluster () {
    local seen
    seen=$(sacctmgr -n -P show cluster format=cluster 2>&1)
    echo "sacctmgr show cluster: $seen"
    grep -qx "$JT_DBD_CLUSTER" <<< "$seen"
}
# ...and the port of the slurmctld that registered with it.
_dbd_ctld_port () {
    local seen
    seen=$(sacctmgr -n -P show cluster "$JT_DBD_CLUSTER" format=controlport 2>&1)
    echo "sacctmgr: $JT_DBD_CLUSTER's ControlPort is '$seen', want $1"
    [ "$seen" = "$1" ]
}

# dbd_start (cluster_start, after munged, before slurmctld): a fresh
# database, mariadbd as root (--user=root, never the system service),
# the slurm user, slurmdbd, the cluster and JT_CLUSTER_SACCTMGR's lines.
dbd_start () {
    local d=$JT_CLUSTER_DIR line
    _dbd_on || return 0
    mariadb-install-db --no-defaults --user=root --datadir="$d/db/data" \
        --auth-root-authentication-method=socket --skip-test-db \
        > "$d/log/mariadb-install.log" 2>&1 \
        || bail_out "mariadb-install-db failed: $(tail -n 5 "$d/log/mariadb-install.log")"
    _spawn "$d/log/mariadbd.out" mariadbd --no-defaults --user=root \
        --datadir="$d/db/data" --tmpdir="$d/db/tmp" --socket="$JT_DB_SOCKET" \
        --port="$JT_DB_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
        --pid-file="$d/run/mariadbd.pid" --log-error="$d/log/mariadbd.log" \
        --skip-log-bin --innodb-use-native-aio=0 --innodb-buffer-pool-size=64M \
        --innodb-flush-log-at-trx-commit=0 --innodb-lock-wait-timeout=900
    wait_for 60 _db_up || bail_out "mariadbd did not answer: $(tail -n 5 "$d/log/mariadbd.log")"
    _db_sql "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$JT_DB_PASS';
             GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" \
        || bail_out "mariadb: could not create the slurm user"
    _spawn "$d/log/slurmdbd.out" slurmdbd -D
    wait_for 120 _dbd_listening \
        || bail_out "slurmdbd does not listen on $JT_DBD_PORT: $(tail -n 5 "$d/log/slurmdbd.log" "$d/log/slurmdbd.out")"
    sacctmgr -i add cluster "$JT_DBD_CLUSTER" >> "$d/log/sacctmgr.log" 2>&1 \
        || bail_out "sacctmgr add cluster $JT_DBD_CLUSTER failed: $(tail -n 3 "$d/log/sacctmgr.log")"
    wait_for 10 _dbd_has_cluster || bail_out "slurmdbd does not list cluster $JT_DBD_CLUSTER"
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        # shellcheck disable=SC2086  # a line is sacctmgr's words
        sacctmgr -i $line >> "$d/log/sacctmgr.log" 2>&1 \
            || bail_out "JT_CLUSTER_SACCTMGR: 'sacctmgr -i $line' failed: $(tail -n 3 "$d/log/sacctmgr.log")"
    done <<< "$JT_DBD_SACCTMGR"
}

# dbd_registered (cluster_start, once slurmctld answers): slurmctld has
# registered with slurmdbd (its port is the cluster's ControlPort), so
# slurmdbd pushes record changes to it from now on.
dbd_registered () {
    _dbd_on || return 0
    wait_for 30 _dbd_ctld_port "$_sub_ctld_port" \
        || bail_out "slurmctld did not register with slurmdbd"
}

# dbd_stop (cluster_stop, after slurmctld): slurmdbd, then mariadbd, by PID.
dbd_stop () {
    local p
    _dbd_on || return 0
    for p in $(daemon_pid slurmdbd); do kill -TERM "$p" 2>/dev/null; done
    wait_for 10 daemon_gone slurmdbd
    for p in $(daemon_pid mariadbd); do kill -TERM "$p" 2>/dev/null; done
    wait_for 30 daemon_gone mariadbd
}

cluster_start () {
    local d=$JT_CLUSTER_DIR i ctld=(slurmctld)
    _spawn "$d/log/munged.out" munged --socket="$d/munge/munge.socket" \
        --key-file="$d/munge/munge.key" --log-file="$d/log/munged.log" \
        --pid-file="$d/run/munged.pid" --seed-file="$d/munge/munge.seed" --foreground
    wait_for 10 test -S "$d/munge/munge.socket" || bail_out "munged did not start"
    ledger_start
    dbd_start

    if [ -n "${JT_CLUSTER_VALGRIND:-}" ]; then
        ctld=(valgrind --log-file="$d/log/valgrind.%p" --leak-check=no slurmctld)
    fi
    _spawn "$d/log/slurmctld.out" "${ctld[@]}" -D -c -f "$SLURM_CONF"
    wait_for 30 scontrol ping || bail_out "slurmctld did not answer scontrol ping"
    dbd_registered
    for i in $(seq 1 $JT_NNODES); do
        _spawn_slurmd "$(printf gpu%02d "$i")"
    done
    if ! wait_for 60 _all_idle; then
        diag "$(_report_not_up)"
        bail_out "nodes not idle after 60 s (see above)"
    fi
}

##
# Stop
##

# PIDs of processes carrying this cluster's marker (only daemons and jobs
# carry it: the test shell does not, so it never kills itself).
cluster_pids () {
    # One grep over every environ (-z: NUL-separated entries): forking per
    # process is slow on some kernels (gVisor).
    grep -lzxF "JT_CLUSTER_ID=$JT_CLUSTER_DIR" /proc/[0-9]*/environ 2>/dev/null \
        | cut -d/ -f3
}

# daemon_pid NAME: the PIDs of this cluster's processes named NAME (empty
# when none runs); daemon_gone NAME: whether none is left (else says which).
daemon_pid () {
    local p
    for p in $(cluster_pids); do
        grep -qx "$1" "/proc/$p/comm" 2>/dev/null && echo "$p"
    done
}
daemon_gone () {
    local p
    p=$(daemon_pid "$1")
    [ -n "$p" ] && echo "$1 still running: pid $p"
    [ -z "$p" ]
}

_kill_named () {    # _kill_named SIG REGEX: this cluster's processes by comm
    local sig=$1 re=$2 p
    for p in $(cluster_pids); do
        grep -Eq "$re" "/proc/$p/comm" 2>/dev/null && kill "-$sig" "$p" 2>/dev/null
    done
}

_no_jobs () { [ -z "$(squeue -h -t running,completing 2>/dev/null)" ]; }
_daemons_gone () {
    local p
    for p in $(cluster_pids); do
        grep -qEx 'slurmd|slurmctld|memcheck.*' "/proc/$p/comm" 2>/dev/null && return 1
    done
    return 0
}
_all_gone () { [ -z "$(cluster_pids)" ]; }

cluster_stop () {
    local left
    trap - EXIT
    [ -n "${JT_CLUSTER_DIR:-}" ] && [ -d "$JT_CLUSTER_DIR" ] || return 0
    if scontrol ping >/dev/null 2>&1; then
        scancel --quiet --user="$(id -un)" 2>/dev/null
        wait_for 5 _no_jobs
    fi
    _kill_named TERM '^slurmd$'
    _kill_named TERM '^(slurmctld|memcheck)'
    wait_for 10 _daemons_gone
    # After slurmctld: its plugin's last events (spooled at fini) stay spooled.
    _kill_named TERM '^jobtree-ledgerd$'
    wait_for 10 daemon_gone jobtree-ledgerd
    dbd_stop
    # Left-overs: stepds, job processes, then munged.
    for p in $(cluster_pids); do
        grep -qx munged "/proc/$p/comm" 2>/dev/null || kill -KILL "$p" 2>/dev/null
    done
    _kill_named TERM '^munged$'
    wait_for 5 _all_gone
    left=$(cluster_pids)
    [ -n "$left" ] && { kill -KILL $left 2>/dev/null; }
    if [ -n "${JT_CLUSTER_VALGRIND:-}" ]; then
        grep -h "ERROR SUMMARY" "$JT_CLUSTER_DIR"/log/valgrind.* 2>/dev/null \
            | sed 's/^/# valgrind slurmctld: /'
    fi
    if [ -z "${JT_CLUSTER_KEEP:-}" ]; then rm -rf "$JT_CLUSTER_DIR"
    else echo "# kept $JT_CLUSTER_DIR"; fi
    JT_CLUSTER_DIR=
    if [ "${_jt_tmpdir_was+set}" = set ]; then export TMPDIR=$_jt_tmpdir_was; else unset TMPDIR; fi
}

##
# Job helpers
##

# The queue holds no job at all.
queue_empty () {
    local q
    q=$(squeue -h 2>/dev/null)
    [ -n "$q" ] && echo "queue: $q"
    [ -z "$q" ]
}

# PID of this cluster's slurmctld (empty when it is not running), and
# whether it is gone: for tests that kill and restart it.
ctld_pid () { daemon_pid slurmctld; }
ctld_gone () { daemon_gone slurmctld; }

# One field of `scontrol show job -o JOBID` (e.g. JobState, AdminComment).
# AdminComment and Comment hold spaces: they run to the next " Key=".
job_field () {
    scontrol show job -o "$1" 2>/dev/null | awk -v k="$2" '{
        s = " " $0; n = index(s, " " k "="); if (!n) exit
        s = substr(s, n + length(k) + 2)
        if (match(s, / [A-Z][A-Za-z:]*=/)) s = substr(s, 1, RSTART - 1)
        sub(/ +$/, "", s)
        print s }'
}

# reason_like JOBID REGEX: the job's pending reason as squeue shows it
# (scontrol -o turns blanks into _) matches; a wait_for condition that
# prints what it saw.
reason_like () {
    local r
    r=$(squeue -h -j "$1" -o %R 2>/dev/null | sed 's/^(//; s/)$//')
    echo "job $1 reason: $r"
    JT_REASON_SEEN=$r
    grep -Eq -- "$2" <<< "$r"
}
# reason_when JOB ERE [SECS]: the job's reason once it matches ERE. Slurm
# 24.11's main scheduler resets a reason set by a plugin's job_test to
# "Resources" until the next backfill pass sets it again (JTC_REASON in
# plugins/common/compat.h, docs/slurm-24.11.md), so a Jobtree reason is
# asserted as seen, not read once; on 22.05 it stays and this returns at
# once. Prints what it last saw on timeout (and fails).
reason_when () {
    wait_for "${3:-20}" reason_like "$1" "$2" >&2
    local rc=$?
    echo "$JT_REASON_SEEN"
    return $rc
}

# why_of JOB: the select plugin's whole explanation of a waiting run (the
# job's SystemComment) as `jobtree explain` lays it out, its clause lines
# joined by " | " on one line; "" before the plugin answered.
why_of () {
    jobtree_cli explain "$1" 2>&1 | awk '/^why/ { on = 1; next }
        on { sub(/^ +/, ""); printf "%s%s", n++ ? " | " : "", $0 } END { print "" }'
}
# why_like JOB ERE: a wait_for condition: the explanation matches ERE
# (JT_WHY_SEEN: what matched). Unlike squeue's reason, Slurm's main
# scheduler never resets it.
why_like () {
    local w
    w=$(why_of "$1")
    echo "job $1 why: $w"
    JT_WHY_SEEN=$w
    grep -Eq -- "$2" <<< "$w"
}

# bf_cycles: backfill's completed cycles (sdiag's "Total cycles" under
# "Backfilling stats", counted at each cycle's end; the same lines on
# 22.05, 24.11 and 26.05). bf_cycles_since N: a wait_for condition: two
# more than N, so one whole cycle began and ended since N was read. A job
# only backfill can start (one behind a waiting job of its partition) has
# its answer by then, however long a loaded machine makes the wait.
bf_cycles () {
    sdiag 2>/dev/null | sed -n '/^Backfilling stats/,$ s/^[[:space:]]*Total cycles: *\([0-9]*\).*/\1/p' | head -n1
}
bf_cycles_since () {
    local n
    n=$(bf_cycles)
    echo "backfill cycles: ${n:-?}, want $(( $1 + 2 ))"
    [ -n "$n" ] && [ "$n" -ge $(( $1 + 2 )) ]
}

# resv_from WHY: the reserved start of an explanation "reserved N nodes
# [in D] from T | ...".
resv_from () { sed -E 's/^reserved [0-9]+ nodes (in [^ ]+ )?from ([0-9T:Z-]+).*/\2/' <<< "$1"; }

# drop_fabric_domains [EXTRA]: every node's features without fabric.domain
# (region and cluster kept, EXTRA added: ",ib"), so only the topology
# (leaf switches, or blocks) says where the domains are. Two TAP tests.
drop_fabric_domains () {
    local half f
    for half in "gpu[01-08] west" "gpu[09-16] east"; do
        f=region=${half#* },cluster=c1${1:-}
        scontrol update NodeName="${half% *}" AvailableFeatures="$f" ActiveFeatures="$f"
        ok $? "${half#* } nodes lose their fabric.domain feature"
    done
}

# topology_domains_run WHAT FIRST: after drop_fabric_domains, a 3-group
# team-a run (6 nodes, 16-GPU groups) starts, each group within one WHAT
# (leaf switch, block), FIRST (domA, blkA) filled before the next, and the
# plan names FIRST as the domain. Four TAP tests (t2030, t2035).
topology_domains_run () {
    local run bound
    run=$(submit --account=team-a -N6 --gres=gpu:h100:8 --group-gpus=16 --wrap "sleep 60")
    wait_job_state "$run" RUNNING 10
    is "$(job_field "$run" JobState)" RUNNING "a 3-group run starts"
    bound=$(job_field "$run" AdminComment | sed 's/^jobtree\/1 //' | python3 -c '
import json, sys
for l in json.load(sys.stdin)["bound"]["leases"]:
    print("%d:%s" % (l["group"], "".join(sorted({"ABCD"[(int(n[3:]) - 1) // 4]
                                                  for n in l["nodes"]}))))')
    is "$(echo "$bound" | grep -c '^[0-9]*:.$')" 3 "every group within one $1"
    is "$(echo "$bound" | tr '\n' ' ')" "0:A 1:A 2:B " "$1 $2 filled before the next"
    like "$(grep -m1 "JobId=$run: BindNow" "$JT_CLUSTER_DIR/log/slurmctld.log")" \
         "west/c1/$2\[" "the plan names the $1 as the domain"
}

# The test cluster's domain letter of node gpuNN (A = gpu01-04, ...), and
# the domains of a job's nodes ("A" or "A,B").
node_domain () { local n=${1#gpu}; n=$((10#$n)); printf "\\x$(printf %x $((65 + (n - 1) / 4)))\n"; }
job_domains () {
    scontrol show hostnames "$(job_field "$1" NodeList)" 2>/dev/null \
        | while read -r n; do node_domain "$n"; done | sort -u | paste -sd, -
}

# Epoch seconds of a Slurm or RFC 3339 time.
epoch () { date -d "$1" +%s; }

# Wait until job JOBID is in one of the states (regex), at most SECS.
wait_job_state () {
    local id=$1 re=$2 secs=${3:-30}
    wait_for "$secs" job_field_like "$id" JobState "^($re)\$"
}

# cluster_reconfigure: `scontrol reconfigure`, in a later second than the
# last read of the files (slurm_conf.last_update has one-second resolution,
# plugins/common/state.c), then wait until slurmctld answers and knows every
# node again: Slurm 24.11 execs a new slurmctld, whose nodes are UNKNOWN
# until their slurmd register (docs/slurm-24.11.md); on 22.05 both hold at
# once.
_later_than () { [ "$(date +%s)" -gt "$1" ]; }
_nodes_known () { ! sinfo -h -N -o %T 2>/dev/null | grep -qi unknown; }
cluster_reconfigure () {
    wait_for 3 _later_than "$(date +%s)"
    scontrol reconfigure || return 1
    wait_for 10 scontrol ping && wait_for 30 _nodes_known
}

# Submit and print the job id (extra args go to sbatch); stderr kept in
# $JT_CLUSTER_DIR/last.err.
# The job inherits the marker, so teardown finds its processes too.
submit () {
    env JT_CLUSTER_ID="$JT_CLUSTER_DIR" sbatch --parsable \
        --output="$JT_CLUSTER_DIR/log/job-%j.out" "$@" \
        2>"$JT_CLUSTER_DIR/last.err" | cut -d';' -f1
}
last_err () { cat "$JT_CLUSTER_DIR/last.err"; }
