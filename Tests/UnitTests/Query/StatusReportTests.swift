import Testing

@testable import IntrapushQuery
@testable import IntrapushStore

@Suite struct StatusReportTests {
    static let now: Int64 = 1_700_000_100_000

    private func liveness(_ state: LiveState?, alive: Bool = true) -> StatusReport.Liveness {
        StatusReport.liveness(of: state, now: Self.now, staleAfter: .seconds(60)) { _ in alive }
    }

    /// "Is it running?" comes from the pid and the age of the state, not from the state alone.
    @Test("liveness: never ran, stopped, gone, stale, running")
    func livenessCases() {
        let fresh = LiveState(pid: 10, state: .connected, updatedAt: Self.now - 5_000)
        #expect(liveness(nil) == .neverRan)
        #expect(liveness(LiveState(pid: 10, state: .stopped, updatedAt: Self.now)) == .notRunning)
        #expect(liveness(fresh, alive: false) == .notRunning)
        #expect(liveness(fresh) == .running)
        var stale = fresh
        stale.updatedAt = Self.now - 61_000
        #expect(liveness(stale) == .unresponsive)
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
            reader: fixture.reader(), now: Self.now, staleAfter: .seconds(60), isProcessRunning: { _ in false })
        let text = report.text(useColor: false)
        #expect(text.hasPrefix("intrapushd is not running (last state \"connected\""))
        #expect(text.contains("Notifications:   3 (2 unread)"))
        #expect(!text.contains("\u{1B}"))
        let json = report.json()
        #expect(json.hasPrefix(#"{"running":false,"liveness":"not-running","state":"connected","pid":999999,"server":"ws://h:1/connect/c/o/***","#))
        #expect(json.contains(#""connected_since":"2023-11-14T22:14:00.000Z""#))
        #expect(json.contains(#""notifications":3,"unread":2},"outbox_waiting":0,"outbox_oldest_queued_at":null}"#))
        #expect(text.contains("Outbox:          nothing waiting for the server"))
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

    /// Untrusted text (a title with an escape sequence) cannot drive the terminal.
    @Test("control characters are shown, not sent")
    func sanitizing() {
        #expect(TerminalText.sanitized("a\u{1B}[2Jb\u{7F}\u{9B}c\nd\te") == "a^[[2Jb^?<U+9B>c\nd\te")
        #expect(TerminalText.sanitized("告警") == "告警")
    }
}
