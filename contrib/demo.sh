#!/bin/bash
# demo.sh - Jobtree end to end on this machine (Debian bookworm, as root):
# install what is needed, build, start a local simulated GPU cluster (real
# munged, slurmctld and 16 slurmd with 8 fake H100 each, 4 fast-fabric
# domains) with the Jobtree plugins loaded, submit a demo workload of several
# teams (grouped, malleable, borrowing), and print where each run landed and
# who pays, then the ledger report. The cluster is left running, and the
# jobtree command stays installed (with jobtree-ledgerd and the man pages,
# under /usr/local), so the README's next commands work.
#
#   contrib/demo.sh          run the demo
#   contrib/demo.sh --stop   stop the demo cluster and remove its directory
#   contrib/demo.sh --dry-run   check what the demo needs (its files, and
#                            that no demo runs) and say what it would
#                            do, changing nothing (the doc-test runs it)
#
# Copyright (C) 2026 The Jobtree authors.
# SPDX-License-Identifier: GPL-2.0-or-later
# Licensed under the GNU General Public License, version 2 or later,
# with the OpenSSL linking exception of LICENSE.OpenSSL.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
state=/run/jobtree-demo.env

if [ "${1:-}" = --stop ]; then
    [ -f "$state" ] || { echo "demo.sh: no demo cluster is running"; exit 0; }
    # shellcheck disable=SC1090
    . "$state"
    . "$top/tests/cluster/lib.sh"
    set +e          # teardown is best effort, like the tests' EXIT trap
    cluster_stop
    rm -f "$state"
    echo "demo.sh: demo cluster stopped"
    exit 0
fi
[ $# -le 1 ] || { echo "demo.sh: one argument at most" >&2; exit 2; }
case "${1:-}" in
''|--dry-run) ;;
*) echo "demo.sh: unknown argument $1 (--stop, --dry-run or none)" >&2; exit 2 ;;
esac
if [ -f "$state" ]; then
    echo "demo.sh: a demo cluster is already running; stop it with: $0 --stop" >&2
    exit 1
fi
if [ "${1:-}" = --dry-run ]; then
    cd "$top"
    for f in contrib/install-deps.sh contrib/build.sh; do
        [ -x "$f" ] || { echo "demo.sh: $f is missing or not executable" >&2; exit 1; }
    done
    for f in tests/cluster/lib.sh contrib/demo-workload.txt etc/budgets; do
        [ -e "$f" ] || { echo "demo.sh: $f is missing" >&2; exit 1; }
    done
    [ "$(id -u)" = 0 ] || echo "demo.sh: dry run: the demo needs root (it installs packages and runs Slurm's daemons)"
    echo "demo.sh: dry run: would run contrib/install-deps.sh and contrib/build.sh build," \
         "install jobtree under the build's prefix (make install-exec install-man)," \
         "check etc/budgets, start the cluster of tests/cluster/lib.sh and submit the" \
         "$(grep -c '^[^#]' contrib/demo-workload.txt) runs of contrib/demo-workload.txt"
    exit 0
fi

cd "$top"
# Each long phase starts with a line "=== what, about how long on a fresh
# machine" and prints a line every 15 s while it works (contrib/progress.sh).
# On a machine that has everything, the phases take seconds.
echo "=== checking the packages Jobtree needs (contrib/install-deps.sh)"
contrib/install-deps.sh
contrib/build.sh build

# The programs and man pages only (/usr/local/bin, /usr/local/sbin,
# /usr/local/share/man): the demo's cluster loads the plugins from the build
# tree, so Slurm's own plugin directory and systemd are left alone. A full
# install is `make install` or the packages (docs/admin-guide.md).
echo "=== installing jobtree (make install-exec install-man)"
make -C build install-exec install-man >build/install.out 2>&1 || {
    tail -n 20 build/install.out >&2
    exit 1
}
jobtree=$(make -s -C build --no-print-directory install-dirs-list |
          sed -n 's/^bindir=//p')/jobtree
[ -x "$jobtree" ] || { echo "demo.sh: $jobtree was not installed" >&2; exit 1; }
if [ "$(command -v jobtree)" = "$jobtree" ]; then
    echo "  $jobtree (man jobtree)"
else
    echo "  $jobtree (man jobtree); its directory is not on this PATH ($PATH)"
fi

echo "=== budgets (etc/budgets)"
"$jobtree" check etc/budgets

echo "=== starting the cluster: munged, jobtree-ledgerd, slurmctld, 16 slurmd (a few seconds)"
export JT_CLUSTER_SELECT=jobtree JT_CLUSTER_BUDGETS=$top/etc/budgets
. tests/cluster/lib.sh
cluster_setup "$top/build"
# If the start fails, tear down what did start: best effort, as in --stop
# (under set -e, lib.sh's trap would stop at its first false test and leave
# munged, slurmctld and the sidecar running).
trap 'set +e; cluster_stop' EXIT
cluster_start
trap - EXIT     # keep it running: `demo.sh --stop` tears it down
{
    echo "JT_CLUSTER_DIR=$JT_CLUSTER_DIR"
    echo "SLURM_CONF=$SLURM_CONF"
    echo "JT_LEDGER_DIR=${JT_LEDGER_DIR:-}"
    echo "export SLURM_CONF"
} > "$state"
sinfo -N -o '%N %f' | sed 's/^/  /'

echo "=== submitting the demo workload"
G8="--gres=gpu:h100:8"
declare -A what
sub () {        # sub NAME SBATCH-ARGS...: submit, remember what it is
    local name=$1 id; shift
    id=$(submit -J "$name" --time=10 "$@" --wrap "sleep 300") || true
    if [ -n "$id" ]; then
        what[$id]="$name"
        printf '  %-10s job %-4s sbatch %s\n' "$name" "$id" "$*"
    else
        printf '  %-10s refused: %s\n' "$name" "$(last_err)"
    fi
}
# contrib/demo-workload.txt: NAME OUTCOME OPTIONS per line (the outcome is
# what tests/cluster/t1005-demo.sh checks; the demo shows it below).
while read -r name _outcome opts; do
    case "$name" in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086  # the options are words
    sub "$name" $opts $G8
done < contrib/demo-workload.txt

none_configuring () { [ -z "$(squeue -h -t configuring 2>/dev/null)" ]; }
wait_for 10 none_configuring || true     # a function: re-evaluated each poll
sleep 2         # one backfill pass (bf_interval=1) for the pending runs

echo
echo "=== where each run landed and who pays"
printf '%-6s %-10s %-9s %-8s %-26s %s\n' JOBID NAME ACCOUNT STATE "GROUPS (domain:nodes)" "PAID BY (role)"
for id in $(printf '%s\n' "${!what[@]}" | sort -n); do
    rec=$(job_field "$id" AdminComment | sed 's/^jobtree\/1 //')
    printf '%-6s %-10s %-9s %-8s ' "$id" "${what[$id]}" "$(job_field "$id" Account)" \
        "$(job_field "$id" JobState)"
    python3 - "$rec" "$(squeue -h -j "$id" -o %r 2>/dev/null)" <<'EOF'
import json, sys
rec, reason = sys.argv[1], sys.argv[2]
try:
    leases = json.loads(rec).get("bound", {}).get("leases", [])
except ValueError:
    leases = []
dom = lambda n: chr(65 + (int(n[3:]) - 1) // 4)
if not rec:
    print("%-26s %s" % ("-", "plain Slurm job (no envelope)"))
elif not leases:
    print("%-26s %s" % ("-", reason))
else:
    groups = " ".join("g%d:%s:%d" % (l["group"], "".join(sorted({dom(n) for n in l["nodes"]})),
                                      len(l["nodes"])) for l in leases)
    payers = sorted({"%s (%s)" % (l["envelope"], l["role"]) for l in leases})
    print("%-26s %s" % (groups, ", ".join(payers)))
EOF
done

# squeue's reason (above) is the short form; the select plugin's whole
# explanation of the first waiting Jobtree run:
if [ -x "$jobtree" ]; then
    for id in $(printf '%s\n' "${!what[@]}" | sort -n); do
        [ "$(job_field "$id" JobState)" = PENDING ] || continue
        job_field "$id" AdminComment | grep -q '^jobtree/' || continue
        echo
        echo "=== why ${what[$id]} waits: jobtree explain $id"
        "$jobtree" explain "$id"
        break
    done
fi

if [ -x "$jobtree" ] && [ -n "${JT_LEDGER_DIR:-}" ]; then
    # The plugin sends lease events without waiting; give the sidecar a
    # moment to make them durable: one Start per bound lease of each
    # running run, plus the BudgetLoaded record.
    want=1
    for id in "${!what[@]}"; do
        [ "$(job_field "$id" JobState)" = RUNNING ] || continue
        # a plain job (no record) has no lease: grep finds nothing
        n=$(job_field "$id" AdminComment | { grep -o '"group":' || true; } | wc -l)
        want=$((want + n))
    done
    ledger_settled "$want" 10 || true
    # Running leases count up to now (the report's default).
    echo
    echo "=== ledger ($JT_LEDGER_DIR): jobtree report leases"
    "$jobtree" report leases "$JT_LEDGER_DIR"
    echo
    echo "=== jobtree report usage (GPU-hours and peak GPUs per owner and envelope)"
    "$jobtree" report usage "$JT_LEDGER_DIR"
    echo
    echo "=== jobtree report reservations (runs that wait, with the start backfill holds room for)"
    "$jobtree" report reservations -o Reservation,Owner,Envelope,GPUs,EarliestStart,Activated "$JT_LEDGER_DIR"
    echo
    "$jobtree" verify "$JT_LEDGER_DIR" | head -n 1
fi

echo
echo "The cluster is still running (SLURM_CONF=$SLURM_CONF)."
echo "Try: SLURM_CONF=$SLURM_CONF squeue; stop it with: $0 --stop"
echo "jobtree is installed; from $top try: jobtree plan --budgets etc/budgets --snapshot etc/snapshot.json --run etc/runs/malleable.json"
