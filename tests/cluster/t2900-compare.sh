#!/bin/bash
# t2900-compare.sh - run.sh's entry for compare.sh (stock cons_tres with
# --switches=1 and without a hint vs Jobtree on the same workload), so the
# comparison runs in the same session as the other cluster tests.
exec bash "$(dirname "$0")/compare.sh" "$@"
