// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
@testable import IntrapushInterface
import IntrapushStore
import Testing

extension Integration {
    @Suite("Watchdog: fed on the loop's turns, starved by a stuck database")
    struct WatchdogTests {
        /// A stuck database is a hung daemon for systemd: pushes wait on it unacknowledged. The
        /// push loop commits, so a write that does not finish holds the loop that feeds the
        /// watchdog; the local API's loop says so on the status line meanwhile. The lock comes
        /// from a real second SQLite connection, as a stuck `fdatasync` would look.
        @Test("a write that cannot finish starves the watchdog; feeding resumes once it finishes, and the push is stored")
        func stuckDatabaseStarvesTheWatchdog() async throws {
            // A 2 s watchdog, fed every second while the push loop turns. The daemon's busy
            // timeout (5 s) outlasts the lock this test holds (~3 s).
            let (_, _, server, notify, daemon) = try await startConnectedNotifying(environment: ["WATCHDOG_USEC": "2000000"])
            func feeds() -> Int { notify.assignments.filter { $0 == "WATCHDOG=1" }.count }
            try await eventually("two watchdog pings while healthy") { feeds() >= 2 }

            let holder = try SQLiteConnection(path: daemon.databasePath)
            try holder.execute("BEGIN IMMEDIATE")
            _ = try await server.client.push(#"{"id":"stuck-1","title":"Waits for the lock"}"#)
            try await eventually("the status line to say the write is stuck") {
                notify.assignments.contains { $0.hasPrefix("STATUS=a database write has not finished for") }
            }
            let fedBefore = feeds()
            // Proving an absence takes a span of time: heartbeats (200 ms) turn the loop ~7 times in it.
            try await Task.sleep(for: .milliseconds(1500))
            #expect(feeds() == fedBefore, "no WATCHDOG=1 while the write is stuck")
            #expect(try await server.stats().acked == 0, "nothing acknowledged before its commit")

            try holder.execute("COMMIT")
            try await server.waitFor("the push to be acknowledged") { $0.acked == 1 }
            try await eventually("the watchdog to be fed again") { feeds() > fedBefore }
            #expect(try DaemonDatabase(path: daemon.databasePath).integer("SELECT count(*) FROM notifications") == 1)
        }
    }
}
