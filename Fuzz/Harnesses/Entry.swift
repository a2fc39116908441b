// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer's entry: one binary for every harness, chosen by `FUZZ_HARNESS` (README "Fuzzing").
/// Each harness feeds the bytes to one parser of outside input and checks what must hold of
/// its answer; a trap, an overflow or a failed check is a finding.
let harnesses: [String: ([UInt8]) -> Void] = [
    "push": fuzzPushDecoder,
    "json": fuzzJSONScanner,
    "toml": fuzzFlatTOML,
    "varlink": fuzzVarlinkMessage,
    "local-api": fuzzLocalAPI,
    "proxy-head": fuzzProxyResponseHead,
    "retry-hint": fuzzRetryHint,
    "netlink": fuzzNetlink,
    "inotify": fuzzInotify,
    "hook-command": fuzzHookCommandLine,
    "outbox-message": fuzzOutboxMessage,
    "server-name": fuzzServerName,
    "settings": fuzzSettingValues,
    "tls-pin": fuzzTLSPin,
    "push-model": fuzzPushModel,
    "notification-content": fuzzNotificationContent,
    "frame-template": fuzzFrameTemplate,
]

let selected: ([UInt8]) -> Void = {
    let name = getenv("FUZZ_HARNESS").map { String(cString: $0) } ?? ""
    guard let harness = harnesses[name] else {
        fputs("FUZZ_HARNESS must be one of: \(harnesses.keys.sorted().joined(separator: ", "))\n", stderr)
        exit(2)
    }
    return harness
}()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selected(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// A failed invariant: a crash libFuzzer records with its input.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("invariant failed: \(message())\n", stderr)
        abort()
    }
}
