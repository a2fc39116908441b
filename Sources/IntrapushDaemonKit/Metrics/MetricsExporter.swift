// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Renders `DaemonMetrics` for `GET /metrics` and `metrics_file`, on a thread of its own: the
/// report's figures come from read queries on the database (a separate read-only connection, as
/// `intrapush status` has), which must not hold up the event loops.
final class MetricsExporter: Sendable {
    let metrics: DaemonMetrics
    let databasePath: String
    let liveState: @Sendable () -> LiveState
    private let thread = WorkerThread(name: .metrics)
    private let lastFileFailure = NIOLockedValueBox<String?>(nil)

    init(metrics: DaemonMetrics, databasePath: String, liveState: @escaping @Sendable () -> LiveState) {
        self.metrics = metrics
        self.databasePath = databasePath
        self.liveState = liveState
    }

    /// The exposition text, rendered on the exporter's thread; completes on `eventLoop`.
    func render(on eventLoop: any EventLoop) -> EventLoopFuture<[UInt8]> {
        thread.runIfActive(eventLoop: eventLoop) { try self.renderNow() }
    }

    /// Writes the text to `path` through a temporary file and a rename, so that a reader
    /// (node_exporter) sees the old file or the new one, never half of one. No fsync: the
    /// figures are renewed anyway, and a metrics file must not make an idle disk busy.
    /// A failure is logged when it first happens and when it ends, not at every renewal.
    @discardableResult
    func write(toFile path: String, on eventLoop: any EventLoop, logger: Logger) -> EventLoopFuture<Void> {
        let lastFailure = self.lastFileFailure
        return thread.runIfActive(eventLoop: eventLoop) {
            do {
                try Self.replace(path, with: try self.renderNow())
                if lastFailure.withLockedValue({ $0.take() }) != nil { logger.notice("metrics_file written again: \(path)") }
            } catch {
                let text = String(describing: error)
                let isNew = lastFailure.withLockedValue { last in
                    defer { last = text }
                    return last != text
                }
                if isNew { logger.warning("cannot write metrics_file: \(text)") }
                throw error
            }
        }
    }

    func renderNow() throws -> [UInt8] {
        let reader = try DatabaseReader(path: databasePath)
        let report = try StatusReport.gather(reader: reader, now: WallClock.nowMilliseconds(), daemon: .state(liveState(), version: LocalAPIInterfaces.version))
        return metrics.render(report)
    }

    static func replace(_ path: String, with bytes: [UInt8]) throws {
        let temporary = path + ".tmp"
        // A new file, never one found there: the directory is shared with node_exporter, and a
        // link planted at the temporary name must not make the daemon write (or chmod) its
        // target. A leftover is removed (unlink removes a link, not what it points to), once.
        var descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if descriptor < 0 && errno == EEXIST && unlink(temporary) == 0 {
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { throw MetricsFileError(path: temporary, errno: errno) }
        // For node_exporter, another user: the unit's UMask=0027 would leave it unreadable, and
        // nothing in it is secret.
        fchmod(descriptor, 0o644)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = MetricsFileError(path: temporary, errno: errno)
                close(descriptor)
                unlink(temporary)
                throw failure
            }
            written += count
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let failure = MetricsFileError(path: path, errno: errno)
            unlink(temporary)
            throw failure
        }
    }

    func shutdown() async {
        await thread.shutdown()
    }
}

/// Writing `metrics_file` failed; says which file and why.
struct MetricsFileError: Error, CustomStringConvertible {
    var path: String
    var errno: Int32
    var description: String { "cannot write \(path): \(String(cString: strerror(errno)))" }
}
