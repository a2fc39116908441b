// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushQuery
@testable import IntrapushInterface
@testable import IntrapushStore

@Suite("Retention and hook figures in status")
struct RetentionStatusTests {
    static let now: Int64 = 1_700_000_100_000

    /// `intrapush status` shows the policy, the last prune, the total, and the hook's counters.
    @Test("status text and JSON show retention and hook counters")
    func statusShowsThem() throws {
        let fixture = try QueryFixture(count: 3)
        let store = try NotificationStore(path: fixture.path)
        try store.writeLiveState(LiveState(
            pid: 42, state: .connected, updatedAt: Self.now - 1000, retentionDays: 90, retentionMaxRows: 1_000_000,
            hookRuns: 12, hookFailures: 2, hookTimeouts: 1, hookDropped: 3))
        _ = try store.pruneBatch(policy: RetentionPolicy(days: 0, maximumRows: 2), now: Self.now - 60_000)
        let report = try StatusReport.gather(
            reader: fixture.reader().database, now: Self.now, daemon: .unreachable, isProcessRunning: { _ in true })
        let text = report.text(useColor: false)
        #expect(text.contains("\nRetention:       90 days, at most 1000000 rows; last pruned "))
        #expect(text.contains(" (1 min ago); 1 removed in total\n"))
        #expect(text.contains("\nHook:            12 runs, 2 failed, 1 timed out, 3 dropped\n"))
        #expect(text.contains("Notifications:   2 (1 unread)"))
        let json = report.json()
        #expect(json.contains(#","retention":{"days":90,"max_rows":1000000,"last_prune_at":"2023-11-14T22:14:00.000Z","pruned_total":1}"#))
        #expect(json.contains(#","hook":{"runs":12,"failures":2,"timeouts":1,"dropped":3},"database":{"#))
    }

    /// A daemon that reports no retention and whose hook never ran adds no lines.
    @Test("no retention or hook lines when there is nothing to say")
    func quietWhenUnknown() throws {
        let fixture = try QueryFixture(count: 1)
        try NotificationStore(path: fixture.path).writeLiveState(LiveState(pid: 42, state: .connected, updatedAt: Self.now))
        let report = try StatusReport.gather(
            reader: fixture.reader().database, now: Self.now, daemon: .unreachable, isProcessRunning: { _ in true })
        let text = report.text(useColor: false)
        #expect(!text.contains("Retention:"))
        #expect(!text.contains("Hook:"))
        #expect(report.json().contains(#""retention":{"days":null,"max_rows":null,"last_prune_at":null,"pruned_total":0}"#))
    }

    /// A newer CLI reads the state of a database the (older) daemon has not migrated to 3 yet.
    @Test("the live state of a version 2 database reads with the new fields at their defaults")
    func readsVersion2() throws {
        let directory = try TemporaryDirectory("store")
        let connection = try SQLiteConnection(path: directory.file())
        try Migrator(migrations: Array(Schema.migrations.prefix(2))).migrate(connection)
        try connection.execute("""
            INSERT INTO daemon_state (id, pid, state, received_total, updated_at) VALUES (1, 7, 'connected', 5, 100)
            """)
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        let state = try #require(try LiveState.read(from: reader))
        #expect(state == LiveState(pid: 7, state: .connected, receivedTotal: 5, updatedAt: 100))
    }
}
