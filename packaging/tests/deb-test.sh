#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The package test: inspects a built intrapush .deb, unpacks it into a scratch root and runs the
# unpacked binaries; then the same for intrapush-notifier. Usage: deb-test.sh [PATH.deb [NOTIFIER.deb]]
# (without a path: `make deb` first).
# Every failed check is reported; the exit status is 1 when any failed.
set -euo pipefail

cd "$(dirname "$0")/../.."
version=$(sed -n '1s/^intrapush (\([^)]*\)).*/\1/p' debian/changelog)
arch=$(dpkg --print-architecture)
deb=${1:-}
notifier_deb=${2:-dist/intrapush-notifier_${version}_${arch}.deb}
if [[ -z $deb ]]; then
    make deb
    deb=dist/intrapush_${version}_${arch}.deb
fi
[[ -f $deb ]] || { echo "deb-test: no package at $deb" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/intrapush-deb-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
root=$scratch/root
source packaging/tests/checks.sh

# --- dpkg-deb --info --------------------------------------------------------------------------
info=$(dpkg-deb --info "$deb")
field() { dpkg-deb --field "$deb" "$1"; }
check "Package is intrapush" test "$(field Package)" = intrapush
check "Version $version (debian/changelog)" test "$(field Version)" = "$version"
check "Architecture $arch" test "$(field Architecture)" = "$arch"
check "Installed-Size is set" test -n "$(field Installed-Size)"
# A per-host agent on thousands of machines (issue 15): no ICU data, no second Swift runtime.
check "the package is at most 15 MB (is $(($(stat -c %s "$deb") / 1000000)) MB)" test "$(stat -c %s "$deb")" -le 15000000
check "installed, at most 45 MB (is $(($(field Installed-Size) / 1000)) MB)" test "$(field Installed-Size)" -le 45000
depends=$(field Depends)
echo "      Depends: $depends"
for package in libc6 libsqlite3-0 libsystemd0; do
    check "Depends names $package" grep -qE "(^|, )$package( |,|$)" <<<"$depends"
done
check "Depends names no Swift runtime" bash -c '! grep -qi swift <<<"$1"' _ "$depends"
check "Depends lets the user be created (debhelper's sysusers alternatives)" \
    grep -q 'systemd | systemd-standalone-sysusers | systemd-sysusers' <<<"$depends"
for member in control md5sums conffiles postinst prerm postrm config templates; do
    check "control archive has $member" grep -qE "^ +[0-9]+ bytes, +[0-9]+ lines +\*? *$member( |$)" <<<"$info"
done

mkdir -p "$scratch/control"
dpkg-deb --control "$deb" "$scratch/control"
check "no conffile an administrator edits: only the drop-ins' README is one" \
    test "$(grep -v '^/etc/intrapush/intrapush.conf.d/README$' "$scratch/control/conffiles" | grep -c intrapush)" = 0
check "debconf asks for the server, the organisation and the token (a password)" \
    bash -c 'grep -qx "Template: intrapush/servers" "$1" && grep -qx "Template: intrapush/org" "$1" && grep -A1 -x "Template: intrapush/token" "$1" | grep -qx "Type: password"' _ "$scratch/control/templates"
check "postinst writes debconf's answers into its own drop-in and forgets the token" \
    bash -c 'grep -q "00-debconf.conf" "$1" && grep -q "db_set intrapush/token \"\"" "$1"' _ "$scratch/control/postinst"
for script in postinst prerm postrm config; do
    check "$script is executable" test -x "$scratch/control/$script"
    check "$script parses (sh -n)" sh -n "$scratch/control/$script"
done
check "postinst creates the user with systemd-sysusers" grep -qE 'systemd-sysusers .*intrapush\.conf' "$scratch/control/postinst"
check "postinst enables the unit through deb-systemd-helper (remembers was-enabled)" \
    grep -q 'deb-systemd-helper --quiet was-enabled' "$scratch/control/postinst"
check "prerm stops the unit only through deb-systemd-invoke" grep -q 'deb-systemd-invoke stop' "$scratch/control/prerm"
check "postrm deletes the token only on purge" \
    bash -c 'sed -n "/= purge/,/^fi/p" "$1" | grep -q "rm -f /etc/intrapush/token"' _ "$scratch/control/postrm"
check "postrm deletes /var/lib/intrapush only on purge" \
    bash -c 'sed -n "/= purge/,/^fi/p" "$1" | grep -q "rm -rf /var/lib/intrapush" && [ "$(grep -c "rm -rf /var/lib/intrapush" "$1")" = 1 ]' _ "$scratch/control/postrm"

# --- dpkg-deb --contents ----------------------------------------------------------------------
contents=$(dpkg-deb --contents "$deb")
check "every entry is owned by root/root" bash -c '! awk "\$2 != \"root/root\"" <<<"$1" | grep -q .' _ "$contents"
check "intrapush-devserver is not shipped" bash -c '! grep -q intrapush-devserver <<<"$1"' _ "$contents"

# --- unpacked into a scratch root: files and modes --------------------------------------------
dpkg-deb -x "$deb" "$root"
expect_mode() {
    local mode=$1 path=$2
    if [[ ! -f $root/$path ]]; then
        fail "/$path is installed"
    elif [[ $(stat -c %a "$root/$path") != "$mode" ]]; then
        fail "/$path has mode $mode (has $(stat -c %a "$root/$path"))"
    elif [[ ! -s $root/$path ]]; then
        fail "/$path is not empty"
    else
        pass "/$path, mode $mode"
    fi
}
expect_mode 755 usr/sbin/intrapushd
expect_mode 755 usr/bin/intrapush
expect_mode 644 usr/lib/systemd/system/intrapush.service
expect_mode 644 usr/lib/systemd/system/intrapush.socket
expect_mode 755 usr/lib/systemd/system-generators/intrapush-token-generator
expect_mode 644 usr/share/intrapush/varlink/io.intrapush.Notifications.varlink
expect_mode 644 usr/lib/sysusers.d/intrapush.conf
expect_mode 644 etc/intrapush/intrapush.conf.d/README
expect_mode 644 usr/share/intrapush/intrapush.conf
expect_mode 644 usr/lib/systemd/catalog/intrapush.catalog
expect_mode 644 usr/share/man/man1/intrapush.1.gz
expect_mode 644 usr/share/man/man5/intrapush.conf.5.gz
expect_mode 644 usr/share/man/man8/intrapushd.8.gz
expect_mode 644 usr/share/bash-completion/completions/intrapush
expect_mode 644 usr/share/zsh/vendor-completions/_intrapush
expect_mode 644 usr/share/fish/vendor_completions.d/intrapush.fish
expect_mode 644 usr/share/doc/intrapush/copyright
expect_mode 644 usr/share/doc/intrapush/changelog.Debian.gz
# /lib, /bin and /sbin are aliases of their /usr counterparts on Debian 12 and 13 (merged /usr):
# a file shipped there is Debian 13's lintian error aliased-location.
check "nothing under /lib, /bin or /sbin, only their merged-/usr places" test -z "$(cd "$root" && ls -d lib bin sbin 2>/dev/null)"

unit=$root/usr/lib/systemd/system/intrapush.service
check "the unit starts /usr/sbin/intrapushd" grep -qx 'ExecStart=/usr/sbin/intrapushd' "$unit"
check "the unit is the one in packaging/" cmp -s "$unit" packaging/intrapush.service
check "the socket unit is the one in packaging/, at /run/intrapush/io.intrapush" \
    bash -c 'cmp -s "$1" packaging/intrapush.socket && grep -qx "ListenStream=/run/intrapush/io.intrapush" "$1"' _ \
    "$root/usr/lib/systemd/system/intrapush.socket"
check "the sysusers entry creates the user intrapush" grep -q '^u intrapush ' "$root/usr/lib/sysusers.d/intrapush.conf"
check "the reference of every key is config/intrapush.conf, in /usr/share/intrapush" cmp -s "$root/usr/share/intrapush/intrapush.conf" config/intrapush.conf
check "the journal catalog is packaging/intrapush.catalog" cmp -s "$root/usr/lib/systemd/catalog/intrapush.catalog" packaging/intrapush.catalog
check "bash completion completes the subcommands" grep -q 'mark-read' "$root/usr/share/bash-completion/completions/intrapush"
check "zsh completion is a compdef" grep -q '^#compdef intrapush' "$root/usr/share/zsh/vendor-completions/_intrapush"
check "fish completion completes intrapush" grep -qE "complete -c '?intrapush'?" "$root/usr/share/fish/vendor_completions.d/intrapush.fish"
check "changelog.Debian.gz is gzip" gzip -t "$root/usr/share/doc/intrapush/changelog.Debian.gz"
for page in man1/intrapush.1 man5/intrapush.conf.5 man8/intrapushd.8; do
    text=$(zcat "$root/usr/share/man/$page.gz")
    check "$page carries the version, not @VERSION@" bash -c '! grep -q @VERSION@ <<<"$1" && grep -q "intrapush $2\"" <<<"$1"' _ "$text" "${version%-*}"
    warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z <<<"$text" 2>&1)
    check "$page renders without groff warnings" test -z "$warnings"
done

# --- the binaries -----------------------------------------------------------------------------
for binary in usr/sbin/intrapushd usr/bin/intrapush; do
    needed=$(readelf -d "$root/$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ' -)
    echo "      $binary NEEDED: $needed"
    check "$binary needs no Swift runtime library" \
        bash -c '! grep -qiE "swift|Foundation|dispatch|BlocksRuntime|icu" <<<"$1"' _ "$needed"
    check "$binary keeps its build id" bash -c 'readelf -n "$1" | grep -q "Build ID"' _ "$root/$binary"
    check "$binary is stripped (no .symtab)" bash -c '! readelf -S "$1" | grep -q "\.symtab"' _ "$root/$binary"
    if [[ $(readelf -V "$root/$binary") == *GLIBC_ABI_DT_RELR* ]]; then
        check "$binary packs its relocations (DT_RELR) and Depends asks for glibc >= 2.36" \
            grep -qE 'libc6 \(>= 2\.(3[6-9]|[4-9][0-9])' <<<"$depends"
    fi
done

# A configuration pointing at the temporary directory, the way an operator writes one.
mkdir -m 0700 "$scratch/state"
token="deb-test-$RANDOM$RANDOM"
(umask 077 && printf '%s\n' "$token" >"$scratch/token")
cat >"$scratch/intrapush.conf" <<EOF
host = "127.0.0.1:9"
org = "acme"
token_file = "$scratch/token"
database = "$scratch/state/notifications.sqlite3"
EOF
# The binaries must run without the caller's overrides or systemd context.
clean_env=(env -u CREDENTIALS_DIRECTORY -u STATE_DIRECTORY -u NOTIFY_SOCKET)
while read -r variable; do clean_env+=(-u "$variable"); done < <(compgen -e | grep '^INTRAPUSH_' || true)

status=0
output=$("${clean_env[@]}" "$root/usr/sbin/intrapushd" --check-config --config "$scratch/intrapush.conf" 2>&1) || status=$?
check "intrapushd --check-config exits 0 on a good configuration (was $status)" test "$status" = 0
check "intrapushd --check-config prints the effective configuration" grep -q 'org = "acme"' <<<"$output"
check "intrapushd --check-config shows the token as ***, never the token" \
    bash -c 'grep -q "\*\*\*" <<<"$1" && ! grep -qF "$2" <<<"$1"' _ "$output" "$token"
check "intrapushd --check-config opened nothing" test ! -e "$scratch/state/notifications.sqlite3"

echo 'heartbeat_intervall = 5' >>"$scratch/intrapush.conf"
status=0
output=$("${clean_env[@]}" "$root/usr/sbin/intrapushd" --check-config --config "$scratch/intrapush.conf" 2>&1) || status=$?
check "intrapushd --check-config exits 78 on an unknown key (was $status)" test "$status" = 78
check "intrapushd names the unknown key" grep -q heartbeat_intervall <<<"$output"

status=0
output=$("${clean_env[@]}" "$root/usr/bin/intrapush" --help 2>&1) || status=$?
check "intrapush --help exits 0 (was $status)" test "$status" = 0
for command in list show count follow mark-read status export; do
    check "intrapush --help lists $command" grep -qE "^ +$command( |$)" <<<"$output"
done
status=0
"${clean_env[@]}" "$root/usr/bin/intrapush" count --database "$scratch/state/missing.sqlite3" >/dev/null 2>&1 || status=$?
check "intrapush exits 66 when the database does not exist (was $status)" test "$status" = 66

# --- the unit, as systemd sees it -------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
    exposure=$(systemd-analyze security --offline=true "$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
    check "the unit's exposure is at most 1.5 (is ${exposure:-unknown})" \
        awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 1.5) }'
    # verify resolves ExecStart=, ExecReload= and the units the unit pulls in under --root: the
    # unpacked package plus the host's units and kill(1), in a copy of the scratch root.
    verify_root=$scratch/verify-root
    cp -a "$root" "$verify_root"
    mkdir -p "$verify_root/usr/lib/systemd/system"
    cp -rn /usr/lib/systemd/system/. "$verify_root/usr/lib/systemd/system/"
    mkdir -p "$verify_root/tmp" "$verify_root/usr/bin"
    ln -s usr/bin "$verify_root/bin"
    cp "$(type -P kill)" "$(type -P env)" "$verify_root/usr/bin/"
    status=0
    # The man pages of Documentation= are looked up with man(1), here in the unpacked package.
    output=$(MANPATH=$root/usr/share/man systemd-analyze verify --root="$verify_root" --man=yes \
        /usr/lib/systemd/system/intrapush.service /usr/lib/systemd/system/intrapush.socket 2>&1) || status=$?
    check "systemd-analyze verify is clean (status $status)" test -z "$output" -a "$status" = 0
    [[ -z $output ]] || printf '      %s\n' "$output"
else
    echo "skip  systemd-analyze is not installed: exposure and verify not checked"
fi

# --- intrapush-notifier -----------------------------------------------------------------------
if [[ -f $notifier_deb ]]; then
    nfield() { dpkg-deb --field "$notifier_deb" "$1"; }
    check "the second package is intrapush-notifier" test "$(nfield Package)" = intrapush-notifier
    ndepends=$(nfield Depends)
    echo "      intrapush-notifier Depends: $ndepends"
    check "intrapush-notifier depends on intrapush of its own version" grep -qF "intrapush (= $version)" <<<"$ndepends"
    check "intrapush-notifier depends on libsystemd0 (sd-bus) and libsqlite3-0" \
        bash -c 'grep -q libsystemd0 <<<"$1" && grep -q libsqlite3-0 <<<"$1"' _ "$ndepends"
    check "intrapush ships no notifier (headless hosts do not get it)" bash -c '! grep -q notifier <<<"$1"' _ "$contents"
    nroot=$scratch/notifier-root
    dpkg-deb -x "$notifier_deb" "$nroot"
    root_before=$root
    root=$nroot
    expect_mode 755 usr/bin/intrapush-notifier
    expect_mode 644 usr/lib/systemd/user/intrapush-notifier.service
    check "intrapush-notifier: nothing under /lib, /bin or /sbin" test -z "$(cd "$nroot" && ls -d lib bin sbin 2>/dev/null)"
    expect_mode 644 etc/xdg/autostart/intrapush-notifier.desktop
    expect_mode 644 usr/share/applications/intrapush-notifier.desktop
    expect_mode 644 usr/share/man/man1/intrapush-notifier.1.gz
    root=$root_before
    mkdir -p "$scratch/notifier-control"
    dpkg-deb --control "$notifier_deb" "$scratch/notifier-control"
    check "postinst enables the user unit for every user (deb-systemd-helper --user)" \
        grep -q 'deb-systemd-helper --user' "$scratch/notifier-control/postinst"
    check "the autostart entry is a conffile" grep -qx /etc/xdg/autostart/intrapush-notifier.desktop "$scratch/notifier-control/conffiles"
    needed=$(readelf -d "$nroot/usr/bin/intrapush-notifier" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ' -)
    echo "      usr/bin/intrapush-notifier NEEDED: $needed"
    check "intrapush-notifier needs no Swift runtime, no TLS" \
        bash -c '! grep -qiE "swift|Foundation|dispatch|icu|ssl|crypto" <<<"$1"' _ "$needed"
    check "intrapush-notifier links no NIO or BoringSSL" \
        bash -c '! strings "$1" | grep -qE "NIOPosix|BoringSSL|CNIOBoringSSL"' _ "$nroot/usr/bin/intrapush-notifier"
    text=$(zcat "$nroot/usr/share/man/man1/intrapush-notifier.1.gz")
    check "intrapush-notifier.1 renders without groff warnings" test -z "$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z <<<"$text" 2>&1)"
    if command -v desktop-file-validate >/dev/null; then
        for entry in etc/xdg/autostart/intrapush-notifier.desktop usr/share/applications/intrapush-notifier.desktop; do
            check "/$entry is a valid desktop entry" desktop-file-validate "$nroot/$entry"
        done
    fi
    status=0
    output=$("${clean_env[@]}" "$nroot/usr/bin/intrapush-notifier" --help 2>&1) || status=$?
    check "intrapush-notifier --help exits 0 and names --catch-up (was $status)" \
        bash -c '[ "$2" = 0 ] && grep -q -- --catch-up <<<"$1"' _ "$output" "$status"
    status=0
    output=$("${clean_env[@]}" DBUS_SESSION_BUS_ADDRESS=unix:path=$scratch/no-bus XDG_RUNTIME_DIR=$scratch \
        "$nroot/usr/bin/intrapush-notifier" --database "$scratch/state/missing.sqlite3" 2>&1) || status=$?
    check "intrapush-notifier exits 69 without a session bus, saying so (was $status)" \
        bash -c '[ "$2" = 69 ] && grep -q "session bus" <<<"$1"' _ "$output" "$status"
    if command -v systemd-analyze >/dev/null; then
        # A user manager needs a runtime directory; the binary is not installed on this host.
        mkdir -m 0700 "$scratch/runtime"
        output=$(XDG_RUNTIME_DIR=$scratch/runtime systemd-analyze verify --user --man=no \
            "$nroot/usr/lib/systemd/user/intrapush-notifier.service" 2>&1 | grep -v "Command /usr/bin/intrapush-notifier is not executable" || true)
        check "systemd-analyze verify --user is clean for the user unit" test -z "$output"
        [[ -z $output ]] || printf '      %s\n' "$output"
    fi
else
    fail "intrapush-notifier is built beside the package ($notifier_deb)"
fi

# --- Debian's own checks ----------------------------------------------------------------------
changes=${deb%.deb}.changes
dbgsym=$(dirname "$deb")/intrapush-dbgsym_${version}_${arch}.deb
if [[ -f $dbgsym ]]; then
    for binary in usr/sbin/intrapushd usr/bin/intrapush; do
        id=$(readelf -n "$root/$binary" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
        check "intrapush-dbgsym holds the debug symbols of /$binary (build id $id)" \
            bash -c 'dpkg-deb --contents "$1" | grep "usr/lib/debug/.build-id/${2:0:2}/${2:2}.debug" >/dev/null' _ "$dbgsym" "$id"
    done
else
    fail "intrapush-dbgsym is built beside the package ($dbgsym)"
fi
if command -v lintian >/dev/null && [[ -f $changes ]]; then
    # Errors and warnings only: the information tags are about the static Swift runtime (its
    # ICU strings read as misspellings, no fortify functions) and the unit without an init.d script.
    tags=$(lintian --fail-on none "$changes" 2>&1 | grep -v '^running with root privileges' || true)
    check "lintian reports no errors and no warnings" test -z "$tags"
    [[ -z $tags ]] || printf '      %s\n' "$tags"
else
    fail "lintian and $changes are there (make test-deps; make deb)"
fi

echo
if ((failures > 0)); then
    echo "deb-test: $failures check(s) failed for $deb"
    exit 1
fi
echo "deb-test: every check passed for $deb ($(stat -c %s "$deb") bytes)"
