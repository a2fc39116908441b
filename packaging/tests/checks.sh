# SPDX-License-Identifier: Apache-2.0
# The checks both package tests report with (sourced): `ok`/`FAIL` lines and a failure count.
failures=0

pass() { printf 'ok    %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }
# check DESCRIPTION COMMAND...: passes when the command (a function too) succeeds.
check() {
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
# check_that DESCRIPTION 'SHELL CODE': the same for a pipeline, evaluated here (functions work).
check_that() {
    if eval "$2"; then pass "$1"; else fail "$1"; fi
}
