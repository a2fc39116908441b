#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds .build/fuzz/intrapush-fuzz: the project's parsers of outside input compiled with
# libFuzzer and AddressSanitizer into one binary, each harness chosen by FUZZ_HARNESS.
#
# The parsers are pure Swift and import no SwiftNIO, so they are compiled here directly, as one
# module: their `import Intrapush…` lines are dropped from copies under .build/fuzz/src. The
# binary is rebuilt only when one of its sources changed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/fuzz
sources=(
    Sources/IntrapushSupport/JSON/*.swift
    Sources/IntrapushSupport/Time/CivilCalendar.swift
    Sources/IntrapushSupport/Time/WallClock.swift
    Sources/IntrapushSupport/PercentDecoding.swift
    Sources/IntrapushSupport/Base64.swift
    Sources/IntrapushSupport/ProductVersion.swift
    Sources/IntrapushStore/Push.swift
    Sources/IntrapushStore/NotificationPriority.swift
    Sources/IntrapushStore/Recipients.swift
    Sources/IntrapushNotifier/Desktop/DesktopNotification.swift
    Sources/IntrapushNotifier/Desktop/NotificationContent.swift
    Sources/IntrapushStore/Outbox/OutboxMessage.swift
    Sources/IntrapushConfiguration/TOML/*.swift
    Sources/IntrapushConfiguration/Loading/ConfigurationKey.swift
    Sources/IntrapushConfiguration/Values/DurationParser.swift
    Sources/IntrapushConfiguration/Values/HostAndPort.swift
    Sources/IntrapushConfiguration/Values/HTTPProxy.swift
    Sources/IntrapushConfiguration/Values/HostIdentity.swift
    Sources/IntrapushConfiguration/Values/PathSegment.swift
    Sources/IntrapushConfiguration/Values/Secret.swift
    Sources/IntrapushConfiguration/HookCommandLine/*.swift
    Sources/IntrapushDaemonKit/Push/PushDecoder.swift
    Sources/IntrapushDaemonKit/Reconnect/RetryHint.swift
    Sources/IntrapushDaemonKit/Reconnect/Backoff.swift
    Sources/IntrapushInterface/Varlink/VarlinkCall.swift
    Sources/IntrapushInterface/Varlink/VarlinkReply.swift
    Sources/IntrapushInterface/Varlink/VarlinkValue.swift
    Sources/IntrapushInterface/Varlink/VarlinkMethod.swift
    Sources/IntrapushInterface/Varlink/VarlinkServiceInterface.swift
    Sources/IntrapushInterface/LocalAPI/*Interface.swift
    Sources/IntrapushInterface/LocalAPI/LocalAPIInterfaces.swift
    Sources/IntrapushInterface/Follow/InotifyEventScanner.swift
    Sources/IntrapushDaemonKit/Dialing/ProxyResponseHead.swift
    Sources/IntrapushDaemonKit/Dialing/ServerNameCheck.swift
    Sources/IntrapushDaemonKit/Dialing/SHA256.swift
    Sources/IntrapushDaemonKit/Network/NetlinkMessageParser.swift
    Sources/IntrapushDaemonKit/Network/NetlinkEvent.swift
    Fuzz/Harnesses/*.swift
)
binary=$out/intrapush-fuzz
if [[ -x $binary ]] && [[ -z $(find "${sources[@]}" Fuzz/build.sh -newer "$binary" 2>/dev/null) ]]; then
    exit 0
fi
rm -rf "$out/src"
mkdir -p "$out/src"
for source in "${sources[@]}"; do
    # One module: the project's imports of its own modules go; the copy keeps its path in its name.
    sed '/^import Intrapush/d; /^@testable import Intrapush/d' "$source" >"$out/src/$(echo "$source" | tr / _)"
done
echo "building $binary (libFuzzer, AddressSanitizer)"
# The linker warns about every sanitizer symbol it cannot export: shown only on failure.
swiftc -sanitize=fuzzer,address -parse-as-library -enable-bare-slash-regex -O -g -package-name intrapush -module-name IntrapushFuzz \
    -Xcc -fmodule-map-file=Sources/CLinux/module.modulemap -I Sources/CLinux \
    "$out"/src/*.swift -o "$binary" >"$out/build.log" 2>&1 || { grep -v "Cannot export local symbol" "$out/build.log" >&2; exit 1; }
