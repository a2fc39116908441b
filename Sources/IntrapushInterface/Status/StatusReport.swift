// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore

/// What `intrapush status` knows: the daemon's live state (asked through its local API, else
/// the last one it saved in the database), whether that daemon runs, and the database's figures.
package struct StatusReport: Sendable {
    /// Whether the daemon that wrote the state is running.
    package enum Liveness: String, Sendable {
        /// It answered.
        case running
        /// Its socket took the question, and it did not answer in time.
        case unresponsive
        /// It said it stopped, or its process is gone.
        case notRunning = "not-running"
        /// No daemon has written a state into this database.
        case neverRan = "never-ran"
    }

    /// What the daemon said when asked through its local API.
    package enum DaemonAnswer: Sendable {
        /// Its live state, from memory, and its version: it is running.
        case state(LiveState, version: String)
        /// It took the connection and did not answer in time: stopped by a signal, or hung.
        case silent
        /// Nothing answers (no daemon, an older one, or no permission): the database's row tells.
        case unreachable
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
    /// The version of the daemon that answered; `nil` when none did.
    package var daemonVersion: String?
    package var liveness: Liveness
    package var database: DatabaseFigures
    package var now: Int64

    /// Gathers the report from the daemon's answer and the database.
    package static func gather(
        reader: DatabaseReader, now: Int64, daemon: DaemonAnswer,
        isProcessRunning: (Int32) -> Bool = StatusReport.isIntrapushdRunning
    ) throws -> StatusReport {
        let saved = try reader.liveState()
        let total = try reader.countAll()
        let backlog = try reader.outboxBacklog()
        let figures = DatabaseFigures(
            path: reader.path,
            sizeBytes: fileSize(reader.path) + fileSize(reader.path + "-wal"),
            notifications: total,
            unread: try reader.countUnread(ofTotal: total),
            outboxWaiting: backlog.waiting,
            outboxOldestQueuedAt: backlog.oldestQueuedAt
        )
        let (state, version, liveness): (LiveState?, String?, Liveness) = switch daemon {
        case .state(let live, let version):
            (live.withPruning(of: saved), version, .running)
        case .silent:
            (saved, nil, .unresponsive)
        case .unreachable:
            (saved, nil, liveness(of: saved, isProcessRunning: isProcessRunning))
        }
        return StatusReport(state: state, daemonVersion: version, liveness: liveness, database: figures, now: now)
    }

    /// The report of someone who may not read the database itself: what the daemon said of its
    /// state and of the notifications this user may see.
    package static func told(
        state: LiveState, version: String, notifications: Int64, unread: Int64, path: String, now: Int64
    ) -> StatusReport {
        StatusReport(
            state: state, daemonVersion: version, liveness: .running,
            database: DatabaseFigures(path: path, sizeBytes: fileSize(path) + fileSize(path + "-wal"), notifications: notifications, unread: unread),
            now: now)
    }

    /// Without an answer from the daemon: whether the one that saved `state` still runs.
    static func liveness(of state: LiveState?, isProcessRunning: (Int32) -> Bool) -> Liveness {
        guard let state else { return .neverRan }
        guard state.state != .stopped, let pid = state.pid, isProcessRunning(pid) else { return .notRunning }
        return .running
    }

    /// Asks the daemon of the database whose local API listens on `socketPath`.
    package static func askDaemon(socketPath: String, timeout: Duration = .seconds(2)) -> DaemonAnswer {
        let client: LocalAPIClient
        do { client = try LocalAPIClient(path: socketPath) } catch { return .unreachable }
        do {
            let reply = try client.call(DaemonInterface.Status.self, .init(), timeout: timeout)
            return .state(LiveState(reply.state), version: reply.version)
        } catch .unreachable(.noAnswer) {
            return .silent
        } catch {
            return .unreachable  // an older daemon, or one that does not let this user ask
        }
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

extension LiveState {
    /// The pruner owns `lastPruneAt` and `prunedTotal` and writes them in its own transactions:
    /// the saved row has them, the daemon's memory may not.
    fileprivate func withPruning(of saved: LiveState?) -> LiveState {
        guard let saved else { return self }
        var merged = self
        merged.lastPruneAt = saved.lastPruneAt
        merged.prunedTotal = saved.prunedTotal
        return merged
    }
}
