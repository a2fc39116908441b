#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the fuzz harnesses: run.sh SECONDS [HARNESS...] (every harness when none is named).
# Each starts from its seeds in Fuzz/Corpus/<harness> and keeps what it learns in
# .build/fuzz/corpus/<harness>; a crash or a failed invariant is saved in .build/fuzz/findings
# and ends the run with status 1. Prints executions per second for each. FUZZ_SEED=N starts
# libFuzzer's random choices from N (make fuzz-smoke: the same inputs in every make test, so that
# a test run fails for the change it tests; make fuzz explores anew each time).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: run.sh SECONDS [HARNESS...]}
shift
Fuzz/build.sh
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
    mapfile -t harnesses < <(ls Fuzz/Corpus)
fi
mkdir -p .build/fuzz/findings
status=0
for harness in "${harnesses[@]}"; do
    corpus=.build/fuzz/corpus/$harness
    mkdir -p "$corpus"
    log=.build/fuzz/$harness.log
    if FUZZ_HARNESS=$harness .build/fuzz/intrapush-fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
        -artifact_prefix=".build/fuzz/findings/$harness-" -print_final_stats=1 "$corpus" "Fuzz/Corpus/$harness" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        printf 'fuzz %-15s ok    %9s runs, %7s/s, corpus %s\n' "$harness" "$runs" "$((runs / seconds))" "$(ls "$corpus" | wc -l)"
    else
        printf 'fuzz %-15s FOUND something: %s\n' "$harness" "$(ls -t .build/fuzz/findings/"$harness"-* 2>/dev/null | head -1)"
        grep -m5 -E "ERROR|invariant|Fatal error|SUMMARY" "$log" || tail -5 "$log"
        status=1
    fi
done
exit $status
