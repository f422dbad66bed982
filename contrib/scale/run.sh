#!/bin/bash
# run.sh - the scale harness: stock select/cons_tres against Jobtree on a
# front-end ("emulator") slurmctld with thousands of simulated 8-GPU nodes.
#
#   contrib/scale/run.sh [--sizes "1024 4096 16384"] [--variants "stock jobtree"]
#                        [--jobs N] [--window S] [--perf] [--keep] [--no-build]
#
# For each size: N nodes n00001.. of 8 x gpu:h100 in 32-node domains (one
# topology/tree leaf per domain under a spine), a front-end slurmd serving
# them all. The workload (workload.py, fixed seed) is JOBS exclusive batch
# jobs of 1/4/16/64 nodes, each sleeping 20-100 s with a 2-minute limit,
# submitted while the partition is DOWN; the partition is then set UP and
# the window (default 180 s) starts: sdiag counters are reset and
# slurmctld's CPU time read. At the end of the window the harness records
# the jobs that started, sdiag's main and backfill statistics, slurmctld's
# CPU time over the window and the multi-node jobs whose nodes span more
# domains than ceil(nodes/32) (a 64-node job needs two; anything more means
# a group crossed a domain).
#
# Variants: stock = plain Slurm (select/cons_tres, no Jobtree plugin at
# all, plain sbatch); jobtree = select/cons_tres_jobtree + job_submit/jobtree
# + the SPANK plugin, every job a run with --group-gpus=min(nodes,32)*8 under
# one owner whose envelope holds the whole cluster (budgets never bind; only
# placement and the cost of deciding differ). jobtree-bestfit = the same with
# PackPolicy=best-fit. jobtree-topoopt = jobtree with
# TopologyParam=TopoOptional in slurm.conf: cons_tres's own topology search
# (_eval_nodes_topo, a pass over every switch's node bitmap per call) only
# for jobs that ask --switches; Jobtree places the runs in their domains
# itself.
#
# All state lives in a temp directory under $SCALE_TMP (default /tmp) that is
# removed at the end (--keep keeps it); every process started carries the
# marker JT_SCALE_ID=<dir> in its environment and is stopped by PID through
# it. --perf records slurmctld with `perf record -g` during the window of
# each jobtree variant (perf.data kept in contrib/scale/results/).
# Results: one line per run in $RESULTS (default
# contrib/scale/results/<UTC time>.txt), and the table on stdout.
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
SIZES="1024 4096 16384"
VARIANTS="stock jobtree"
NJOBS=2000
WINDOW=180
PERF=0
KEEP=0
BUILD=1
SCALE=${SCALE_DIR:-/var/tmp/jobtree-scale}
PLUG=${SCALE_PLUG:-$top/build-scale-plug}
while [ $# -gt 0 ]; do
    case $1 in
    --sizes) SIZES=$2; shift ;;
    --variants) VARIANTS=$2; shift ;;
    --jobs) NJOBS=$2; shift ;;
    --window) WINDOW=$2; shift ;;
    --perf) PERF=1 ;;
    --keep) KEEP=1 ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
for s in $SIZES; do
    case $s in ''|*[!0-9]*) echo "run.sh: --sizes: '$s' is not a number" >&2; exit 2 ;; esac
    if [ "$s" -lt 64 ] || [ "$s" -gt 65536 ] || [ $((s % 32)) -ne 0 ]; then
        echo "run.sh: --sizes: $s must be a multiple of 32 in [64, 65536]" >&2; exit 2
    fi
done
for v in $VARIANTS; do
    case $v in stock|jobtree|jobtree-bestfit|jobtree-topoopt) ;;
    *) echo "run.sh: --variants: unknown variant '$v' (stock, jobtree, jobtree-bestfit, jobtree-topoopt)" >&2; exit 2 ;;
    esac
done
case $NJOBS in ''|*[!0-9]*) echo "run.sh: --jobs '$NJOBS' is not a number" >&2; exit 2 ;; esac
case $WINDOW in ''|*[!0-9]*) echo "run.sh: --window '$WINDOW' is not a number" >&2; exit 2 ;; esac
if [ "$NJOBS" -lt 1 ] || [ "$NJOBS" -gt 20000 ]; then echo "run.sh: --jobs must be in [1, 20000]" >&2; exit 2; fi
if [ "$WINDOW" -lt 10 ] || [ "$WINDOW" -gt 3600 ]; then echo "run.sh: --window must be in [10, 3600] s" >&2; exit 2; fi
[ "$(id -u)" = 0 ] || { echo "run.sh: must run as root (SlurmUser=root, jobs run as root)" >&2; exit 2; }

NICE="nice -n 10"
log() { echo "scale: $(date -u +%H:%M:%S) $*" >&2; }
die() { log "$*"; exit 1; }

if [ "$BUILD" = 1 ]; then
    "$here/build-emulator.sh" "$SCALE" "$PLUG" >/dev/null || die "build failed"
fi
INST=$SCALE/inst
[ -x "$INST/sbin/slurmctld" ] || die "no front-end slurmctld in $INST (run without --no-build)"
grep -q '^#define HAVE_FRONT_END 1' "$SCALE/slurm-src/config.h" || die "$SCALE/slurm-src is not a front-end build"
if [ "$VARIANTS" != stock ]; then
    for so in select/.libs/select_cons_tres_jobtree.so job_submit/.libs/job_submit_jobtree.so \
              spank/.libs/jobtree_spank.so; do
        [ -f "$PLUG/plugins/$so" ] || die "$PLUG/plugins/$so not built"
    done
fi
# The front-end daemons and commands, and their libslurmfull (Debian's
# build uses --without-rpath): never the installed non-front-end ones.
export PATH=$INST/bin:$INST/sbin:$PATH
export LD_LIBRARY_PATH=$INST/lib:$INST/lib/slurm${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

mkdir -p "$here/results"
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULTS=${RESULTS:-$here/results/$STAMP.txt}
: > "$RESULTS"
{ echo "# contrib/scale/run.sh --sizes \"$SIZES\" --variants \"$VARIANTS\" --jobs $NJOBS --window $WINDOW"
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) CPUs, $(uname -r); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# jobtree $(git -C "$top" rev-parse --short HEAD 2>/dev/null)"
  echo "# size variant started submitted main_cycles main_mean_us main_depth_mean main_us_per_job bf_cycles bf_mean_us bf_depth_mean bf_us_per_job ctld_cpu_s multi crossing load1_end"
} >> "$RESULTS"

D=
CTLD=
# Every process of this run: the marker in /proc/PID/environ.
marked_pids() {
    [ -n "$D" ] || return 0
    grep -lzxF "JT_SCALE_ID=$D" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}
kill_named() {   # kill_named SIG REGEX (comm)
    local p
    for p in $(marked_pids); do
        grep -Eq "$2" "/proc/$p/comm" 2>/dev/null && kill "-$1" "$p" 2>/dev/null
    done
}
# wait_until SECS CMD...: poll every 0.2 s; on timeout say what was seen.
wait_until() {
    local secs=$1 end; shift
    end=$(( $(date +%s) + secs ))
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$end" ]; then
            log "gave up after ${secs}s waiting for: $* (saw: $("$@" 2>&1 | tail -n 3 | tr '\n' ' '))"
            return 1
        fi
        sleep 0.2
    done
}
teardown() {
    local p i
    [ -n "$D" ] || return 0
    # State is thrown away: no scancel, the daemons and jobs are stopped by
    # PID (slurmd first so that it does not relaunch anything).
    kill_named TERM '^slurmd$'
    kill_named TERM '^slurmctld$'
    for i in $(seq 1 50); do
        [ -z "$(for p in $(marked_pids); do grep -Exq 'slurmd|slurmctld' /proc/$p/comm 2>/dev/null && echo $p; done)" ] && break
        sleep 0.2
    done
    for p in $(marked_pids); do
        grep -qx munged "/proc/$p/comm" 2>/dev/null || kill -KILL "$p" 2>/dev/null
    done
    kill_named TERM '^munged$'
    for i in $(seq 1 50); do [ -z "$(marked_pids)" ] && break; sleep 0.2; done
    p=$(marked_pids); [ -n "$p" ] && kill -KILL $p 2>/dev/null
    if [ "$KEEP" = 1 ]; then log "kept $D"; else rm -rf "$D"; fi
    CTLD=
    D=
}
trap teardown EXIT
trap 'exit 130' INT TERM

# A free TCP port pair below the ephemeral range (cf. tests/cluster/lib.sh).
free_port() {
    local lo base used tries=0
    read -r lo _ < /proc/sys/net/ipv4/ip_local_port_range || lo=32768
    used=$(awk 'NR > 1 { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u)
    while [ $tries -lt 50 ]; do
        base=$(( 20000 + RANDOM % (lo - 20010) ))
        if ! grep -qix "$(printf %04X $base)" <<< "$used" &&
           ! grep -qix "$(printf %04X $((base + 1)))" <<< "$used"; then
            echo "$base"; return 0
        fi
        tries=$((tries + 1))
    done
    return 1
}

spawn() {   # spawn LOG CMD...: detached, marked, no inherited fds
    local out=$1; shift
    ( exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
      setsid env JT_SCALE_ID="$D" SLURM_CONF="$SLURM_CONF" "$@" </dev/null >>"$out" 2>&1 & )
}

nodes_idle() {
    local n
    n=$(sinfo -h -t idle -o '%D' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
    echo "idle nodes: $n of $1"
    [ "$n" -eq "$1" ]
}

# setup SIZE VARIANT: the config of one cluster in a fresh directory.
setup() {
    local size=$1 variant=$2 port ndom d0 sel
    D=$(mktemp -d "${SCALE_TMP:-/tmp}/jt-scale.XXXXXX") || die "mktemp"
    chmod 0755 "$D"
    mkdir -p "$D"/{etc,state,spool,run,log,munge,plugins,budgets}
    export SLURM_CONF=$D/etc/slurm.conf
    port=$(free_port) || die "no free port"
    ndom=$((size / 32))
    sel=select/cons_tres
    if [ "$variant" != stock ]; then
        sel=select/cons_tres_jobtree
        ln -s "$PLUG/plugins/select/.libs/select_cons_tres_jobtree.so" "$D/plugins/"
        ln -s "$PLUG/plugins/job_submit/.libs/job_submit_jobtree.so" "$D/plugins/"
    fi
    cat > "$SLURM_CONF" <<EOF
# contrib/scale/run.sh: $size nodes, $variant
ClusterName=jtscale
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.socket
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PluginDir=$D/plugins:$INST/lib/slurm
SelectType=$sel
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
TopologyPlugin=topology/tree
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=5
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=1
SlurmdParameters=config_overrides
InactiveLimit=0
KillWait=2
MinJobAge=3600
MaxJobCount=50000
SlurmctldTimeout=300
SlurmdTimeout=300
MessageTimeout=60
FrontendName=fe0 FrontendAddr=127.0.0.1 Port=$((port + 1))
NodeName=DEFAULT CPUs=8 RealMemory=8000 Gres=gpu:h100:8 Features=cluster=c1 State=UNKNOWN
NodeName=n[00001-$(printf %05d "$size")]
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=DOWN OverSubscribe=EXCLUSIVE
EOF
    [ "$variant" = jobtree-topoopt ] && echo "TopologyParam=TopoOptional" >> "$SLURM_CONF"
    if [ "$variant" != stock ]; then
        echo "JobSubmitPlugins=jobtree" >> "$SLURM_CONF"
        echo "PlugStackConfig=$D/etc/plugstack.conf" >> "$SLURM_CONF"
        echo "required $PLUG/plugins/spank/.libs/jobtree_spank.so" > "$D/etc/plugstack.conf"
        { echo "BudgetDir=$D/budgets"
          echo "UnfundedPolicy=refuse"
          [ "$variant" = jobtree-bestfit ] && echo "PackPolicy=best-fit"
          # SCALE_JOBTREE_CONF="DebugCrossCheck=yes": extra jobtree.conf
          # lines (one per line), e.g. to cross-check at scale
          [ -n "${SCALE_JOBTREE_CONF:-}" ] && printf '%s\n' "$SCALE_JOBTREE_CONF"
          true; } > "$D/etc/jobtree.conf"
        cat > "$D/budgets/scale.json" <<EOF
{ "owner": "scale",
  "envelopes": [ { "name": "scale-h100", "flavor": "h100", "selector": { "cluster": "c1" },
                   "start": "2026-01-01T00:00:00Z", "end": "2031-01-01T00:00:00Z",
                   "concurrency": $((size * 8)) } ] }
EOF
    else
        echo "PlugStackConfig=$D/etc/plugstack.conf" >> "$SLURM_CONF"
        : > "$D/etc/plugstack.conf"
    fi
    {
        for ((d0 = 0; d0 < ndom; d0++)); do
            printf 'SwitchName=d%04d Nodes=n[%05d-%05d]\n' $((d0 + 1)) $((d0 * 32 + 1)) $((d0 * 32 + 32))
        done
        printf 'SwitchName=spine Switches=d[0001-%04d]\n' "$ndom"
    } > "$D/etc/topology.conf"
    # The front-end slurmd reports one gres set for every node it serves:
    # without 8 GPUs in its gres.conf slurmctld sets every node DOWN ("gres/gpu
    # count reported lower than configured"). File= must stat as a character
    # device (tests/cluster: symlinks to /dev/null).
    mkdir -p "$D/dev"
    for i in 0 1 2 3 4 5 6 7; do ln -s /dev/null "$D/dev/gpu$i"; done
    printf 'AutoDetect=off\nName=gpu Type=h100 File=%s/dev/gpu[0-7]\n' "$D" > "$D/etc/gres.conf"
    mungekey -c -k "$D/munge/munge.key" 2>/dev/null || die "mungekey failed"
}

start() {
    local size=$1
    spawn "$D/log/munged.out" munged --socket="$D/munge/munge.socket" \
        --key-file="$D/munge/munge.key" --log-file="$D/log/munged.log" \
        --pid-file="$D/run/munged.pid" --seed-file="$D/munge/munge.seed" --foreground
    wait_until 10 test -S "$D/munge/munge.socket" || die "munged did not start"
    # SCALE_CTLD_WRAP="gdb -batch -ex run -ex bt --args" to debug a crash
    spawn "$D/log/slurmctld.out" $NICE ${SCALE_CTLD_WRAP:-} "$INST/sbin/slurmctld" -D -c -f "$SLURM_CONF"
    wait_until 120 scontrol ping || { tail -n 20 "$D"/log/slurmctld.* >&2; die "slurmctld did not answer"; }
    spawn "$D/log/slurmd.out" $NICE "$INST/sbin/slurmd" -D -f "$SLURM_CONF" -N fe0
    wait_until 300 nodes_idle "$size" || { tail -n 20 "$D"/log/slurm*.log >&2; die "nodes not idle"; }
    CTLD=$(cat "$D/run/slurmctld.pid")
}

ctld_cpu() {   # utime + stime of slurmctld, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$CTLD/stat"
}

# run_one SIZE VARIANT: one cluster, the workload, the window, one result line.
run_one() {
    local size=$1 variant=$2 t0 c0 c1 n sub=0 id perfpid= hz
    log "$size nodes, $variant: starting"
    setup "$size" "$variant"
    start "$size"
    log "$size nodes, $variant: $size nodes idle; submitting $NJOBS jobs (partition down)"
    python3 "$here/workload.py" --jobs "$NJOBS" > "$D/workload.txt" || die "workload.py failed"
    # the jobs' TMPDIR (the SPANK plugin's layout file) in the run's own
    # directory, removed with it, not /tmp
    mkdir -p "$D/tmp" && chmod 1777 "$D/tmp"
    while read -r n dur; do
        local extra=()
        [ "$variant" != stock ] && extra=(--account=scale --group-gpus=$(( (n < 32 ? n : 32) * 8 )))
        id=$(env JT_SCALE_ID="$D" TMPDIR="$D/tmp" sbatch --parsable -N "$n" --exclusive --gres=gpu:h100:8 \
                 -t 2 -o /dev/null "${extra[@]}" --wrap "sleep $dur" 2>>"$D/log/sbatch.err")
        [ -n "$id" ] && sub=$((sub + 1))
    done < "$D/workload.txt"
    [ "$sub" -eq "$NJOBS" ] || log "only $sub of $NJOBS submitted: $(sort "$D/log/sbatch.err" | uniq -c | head -n 3)"
    [ "$sub" -gt 0 ] || die "no job submitted"
    sdiag -r >/dev/null || die "sdiag -r failed"
    hz=$(getconf CLK_TCK)
    c0=$(ctld_cpu)
    scontrol update PartitionName=gpu State=UP || die "partition not set up"
    t0=$(date +%s)
    log "$size nodes, $variant: window of $WINDOW s started"
    if [ "$PERF" = 1 ] && [ "$variant" != stock ]; then
        perf record -g -o "$here/results/perf-$STAMP-$size-$variant.data" -p "$CTLD" \
            >"$D/log/perf.out" 2>&1 &
        perfpid=$!
    fi
    sleep $(( t0 + WINDOW - $(date +%s) ))
    if [ ! -r "/proc/$CTLD/stat" ]; then
        KEEP=1   # the logs are the evidence
        die "slurmctld (pid $CTLD) died during the window: see $D/log/slurmctld.out (SCALE_CTLD_WRAP runs it under gdb)"
    fi
    c1=$(ctld_cpu)
    [ -n "$perfpid" ] && { kill -INT "$perfpid"; wait "$perfpid"; }
    sdiag > "$D/sdiag.txt" 2>&1
    squeue -h -t all -o '%i|%T|%D|%N' > "$D/jobs.txt" 2>&1
    python3 "$here/summarize.py" --size "$size" --variant "$variant" --submitted "$sub" \
        --cpu "$(awk -v a="$c0" -v b="$c1" -v h="$hz" 'BEGIN { printf "%.1f", (b - a) / h }')" \
        --sdiag "$D/sdiag.txt" --jobs "$D/jobs.txt" --load "$(cut -d' ' -f1 /proc/loadavg)" \
        >> "$RESULTS" || die "summarize.py failed on $D"
    log "$size nodes, $variant: $(tail -n 1 "$RESULTS")"
    teardown
}

for size in $SIZES; do
    for v in $VARIANTS; do
        run_one "$size" "$v"
    done
done
python3 "$here/summarize.py" --table "$RESULTS"
log "results in $RESULTS"
