// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushQuery
@testable import IntrapushInterface
@testable import IntrapushStore
@testable import IntrapushSupport

@Suite struct StatusReportTests {
    static let now: Int64 = 1_700_000_100_000

    private func liveness(_ state: LiveState?, alive: Bool = true) -> StatusReport.Liveness {
        StatusReport.liveness(of: state) { _ in alive }
    }

    /// Without an answer from the daemon, "is it running?" comes from the saved state and its pid.
    @Test("liveness without the daemon's answer: never ran, stopped, gone, running")
    func livenessCases() {
        let saved = LiveState(pid: 10, state: .connected, updatedAt: Self.now - 600_000)
        #expect(liveness(nil) == .neverRan)
        #expect(liveness(LiveState(pid: 10, state: .stopped, updatedAt: Self.now)) == .notRunning)
        #expect(liveness(saved, alive: false) == .notRunning)
        #expect(liveness(saved) == .running, "an old row is fine: an idle daemon does not write")
    }

    /// The daemon's answer wins over the saved row, except for the pruner's two fields; a daemon
    /// that takes the question and does not answer is unresponsive.
    @Test("the daemon's answer: its state with the saved pruning; silence is unresponsive")
    func daemonAnswer() throws {
        let fixture = try QueryFixture(count: 2)
        let store = try NotificationStore(path: fixture.path)
        try store.writeLiveState(LiveState(pid: 42, state: .connected, ackedTotal: 2, updatedAt: Self.now - 60_000))
        _ = try store.pruneBatch(policy: RetentionPolicy(days: 0, maximumRows: 1), now: Self.now - 30_000)
        let live = LiveState(
            pid: 42, state: .connected, lastHeartbeatAt: Self.now - 1_000, receivedTotal: 3, ackedTotal: 3, updatedAt: Self.now)
        let answered = try StatusReport.gather(reader: fixture.reader().database, now: Self.now, daemon: .state(live, version: "9.8.7")) { _ in false }
        #expect(answered.liveness == .running)
        #expect(answered.daemonVersion == "9.8.7" && answered.text(useColor: false).contains("Version:         intrapushd 9.8.7"))
        #expect(answered.json().contains(#""version":"9.8.7","state":"connected""#))
        #expect(answered.state?.ackedTotal == 3 && answered.state?.lastHeartbeatAt == Self.now - 1_000)
        #expect(answered.state?.lastPruneAt == Self.now - 30_000)
        let silent = try StatusReport.gather(reader: fixture.reader().database, now: Self.now, daemon: .silent) { _ in true }
        #expect(silent.liveness == .unresponsive && silent.state?.ackedTotal == 2)
        #expect(silent.headline(useColor: false).hasPrefix("intrapushd (pid 42) does not answer: it may be stopped or hung"))
    }

    /// What the daemon tells through its local API reads back whole, a newline in an error
    /// included, and a client built before a field was added skips it.
    @Test("the live state round-trips through the local API's DaemonState")
    func liveStateThroughLocalAPI() throws {
        var state = LiveState(
            pid: 7, state: .reconnecting, server: "ws://h:1/c/***", lastHeartbeatAt: 5, reconnectAttempt: 3,
            nextAttemptAt: 9, lastError: "cannot resolve h\nsecond line", receivedTotal: 10, storedTotal: 8,
            duplicateTotal: 1, ackedTotal: 10, connectionsTotal: 4, startedAt: 1, updatedAt: 11, retentionDays: 90,
            retentionMaxRows: 5, lastPruneAt: 6, prunedTotal: 2, hookRuns: 3, hookFailures: 1, hookTimeouts: 1, hookDropped: 1)
        state.primaryServer = "ws://p:1/c/***"
        state.primaryUnreachableSince = 4
        let json = state.localAPIValue.varlinkJSON
        #expect(json["pid"]?.integer == 7 && json["last_error"]?.string == "cannot resolve h\nsecond line")
        let read = try DaemonInterface.DaemonState(varlink: json, at: "state", strict: true)
        #expect(LiveState(read) == state)
        guard case .object(var members) = json else { Issue.record("an object"); return }
        members["future_field"] = .string("x")
        #expect(throws: VarlinkDecodingError(field: "state.future_field")) {
            try DaemonInterface.DaemonState(varlink: .object(members), at: "state", strict: true)
        }
        #expect(LiveState(try DaemonInterface.DaemonState(varlink: .object(members), at: "state", strict: false)) == state)
    }

    /// The report says plainly that the daemon is not running, and never shows more than `***`.
    @Test("text and JSON of a daemon that did not stop cleanly")
    func crashedDaemon() throws {
        let fixture = try QueryFixture(count: 3)
        let store = try NotificationStore(path: fixture.path)
        try store.writeLiveState(LiveState(
            pid: 999_999, state: .connected, server: "ws://h:1/connect/c/o/***", connectedSince: Self.now - 60_000,
            updatedAt: Self.now - 30_000))
        let report = try StatusReport.gather(
            reader: fixture.reader().database, now: Self.now, daemon: .unreachable, isProcessRunning: { _ in false })
        let text = report.text(useColor: false)
        #expect(text.hasPrefix("intrapushd is not running (last state \"connected\""))
        #expect(text.contains("Notifications:   3 (2 unread)"))
        #expect(!text.contains("\u{1B}"))
        let json = report.json()
        #expect(json.hasPrefix(#"{"running":false,"liveness":"not-running","version":null,"state":"connected","pid":999999,"server":"ws://h:1/connect/c/o/***","#))
        #expect(json.contains(#""connected_since":"2023-11-14T22:14:00.000Z""#))
        #expect(json.contains(#""notifications":3,"unread":2},"outbox_waiting":0,"outbox_oldest_queued_at":null,"commit_running_since":null,"host_id":null}"#))
        #expect(text.contains("Outbox:          nothing waiting for the server"))
        #expect(!text.contains("Stalled:"), "no stall without a write running")
    }

    /// A daemon without a route to its server says so in the headline, not as a bare state name.
    @Test("a running daemon waiting for the network")
    func waitingForNetwork() {
        let report = StatusReport(
            state: LiveState(pid: 42, state: .waitingForNetwork, reconnectAttempt: 2, updatedAt: Self.now - 1_000),
            liveness: .running,
            database: .init(path: "/tmp/n.sqlite3", sizeBytes: 0, notifications: 0, unread: 0),
            now: Self.now)
        #expect(report.headline(useColor: false) == "intrapushd (pid 42) is running, waiting for network (no route to the server)")
        #expect(report.json().contains(#""state":"waiting-for-network""#))
    }

    /// A write that does not finish is said in words, with how long, and in JSON as a time.
    @Test("a running daemon whose database write does not finish")
    func stalledWrite() {
        var state = LiveState(pid: 42, state: .connected, updatedAt: Self.now)
        state.commitRunningSince = Self.now - 12_000
        let report = StatusReport(
            state: state,
            liveness: .running,
            database: .init(path: "/tmp/n.sqlite3", sizeBytes: 0, notifications: 0, unread: 0),
            now: Self.now)
        #expect(report.text(useColor: false).contains(
            "Stalled:         a database write has been running for 12 s without finishing"))
        #expect(report.json().contains(#","commit_running_since":"2023-11-14T22:14:48.000Z","host_id":null}"#))
    }

    /// Untrusted text (a title with an escape sequence) cannot drive the terminal.
    @Test("control characters are shown, not sent")
    func sanitizing() {
        #expect(TerminalText.sanitized("a\u{1B}[2Jb\u{7F}\u{9B}c\nd\te") == "a^[[2Jb^?<U+9B>c\nd\te")
        #expect(TerminalText.sanitized("告警") == "告警")
    }
}
