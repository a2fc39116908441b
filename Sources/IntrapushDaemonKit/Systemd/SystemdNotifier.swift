// SPDX-License-Identifier: Apache-2.0

import CSystemd
#if canImport(Glibc)
import Glibc
#endif
import IntrapushSupport

/// Tells systemd what the daemon is doing, through libsystemd's `sd_notify`.
///
/// Without `NOTIFY_SOCKET` (not started by systemd) every call is a no-op, as in libsystemd.
struct SystemdNotifier: Sendable {
    init() {}

    /// Sends `state` (newline-separated `KEY=VALUE` assignments); returns whether it was delivered.
    @discardableResult
    func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    func ready(status: String? = nil) {
        notify(["READY=1", status.map { "STATUS=\(Self.oneLine($0))" }].compactMap { $0 }.joined(separator: "\n"))
    }

    func status(_ text: String) {
        notify("STATUS=\(Self.oneLine(text))")
    }

    func reloading() {
        notify("RELOADING=1\nMONOTONIC_USEC=\(WallClock.monotonicMicroseconds())")
    }

    func stopping() {
        notify("STOPPING=1")
    }

    func watchdogAlive() {
        notify("WATCHDOG=1")
    }

    /// The watchdog period systemd expects (`WATCHDOG_USEC`, honouring `WATCHDOG_PID`), or nil.
    func watchdogTimeout() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// A status is one line: newlines would start a new assignment.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
