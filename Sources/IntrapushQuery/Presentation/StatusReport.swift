#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore

/// What `intrapush status` knows: the daemon's live state from the database, whether that daemon
/// is still running, and the database's own figures.
package struct StatusReport: Sendable {
    /// Whether the daemon that wrote the state is running.
    package enum Liveness: String, Sendable {
        /// Its process exists and its state is fresh.
        case running
        /// Its process exists but has not updated its state for far longer than it should.
        case unresponsive
        /// It said it stopped, or its process is gone.
        case notRunning = "not-running"
        /// No daemon has written a state into this database.
        case neverRan = "never-ran"
    }

    package struct DatabaseFigures: Sendable {
        package var path: String
        /// The database file and its WAL, in bytes.
        package var sizeBytes: Int64
        package var notifications: Int64
        package var unread: Int64
        /// Messages to the server not yet delivered, and when the oldest of them was queued.
        package var outboxWaiting: Int64 = 0
        package var outboxOldestQueuedAt: Int64?
    }

    package var state: LiveState?
    package var liveness: Liveness
    package var database: DatabaseFigures
    package var now: Int64

    /// Gathers the report.
    ///
    /// - Parameter staleAfter: how long the daemon may go without updating its state; it writes on
    ///   every state change and heartbeat, and on every reconnect attempt.
    package static func gather(
        reader: NotificationReader, now: Int64, staleAfter: Duration,
        isProcessRunning: (Int32) -> Bool = StatusReport.isIntrapushdRunning
    ) throws -> StatusReport {
        let state = try reader.liveState()
        let total = try reader.count(NotificationQuery())
        let backlog = try reader.outboxBacklog()
        let figures = DatabaseFigures(
            path: reader.path,
            sizeBytes: fileSize(reader.path) + fileSize(reader.path + "-wal"),
            notifications: total,
            unread: try reader.countUnread(ofTotal: total),
            outboxWaiting: backlog.waiting,
            outboxOldestQueuedAt: backlog.oldestQueuedAt
        )
        return StatusReport(
            state: state,
            liveness: liveness(of: state, now: now, staleAfter: staleAfter, isProcessRunning: isProcessRunning),
            database: figures,
            now: now
        )
    }

    static func liveness(
        of state: LiveState?, now: Int64, staleAfter: Duration, isProcessRunning: (Int32) -> Bool
    ) -> Liveness {
        guard let state else { return .neverRan }
        guard state.state != .stopped, let pid = state.pid, isProcessRunning(pid) else { return .notRunning }
        let staleMilliseconds = staleAfter.components.seconds * 1000
        return now - state.updatedAt > staleMilliseconds ? .unresponsive : .running
    }

    /// The process exists (EPERM means it does, under another user) and, where /proc tells, it is
    /// an intrapushd rather than an unrelated process that inherited the pid.
    package static func isIntrapushdRunning(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let file = fopen("/proc/\(pid)/comm", "r") else { return true }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return true }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.hasPrefix("intrapushd")
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
