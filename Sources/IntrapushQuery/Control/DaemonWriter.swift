import IntrapushConfiguration
import IntrapushStore
import IntrapushSupport

/// How the CLI's writes reach the database: through the daemon's control socket (the daemon is
/// the one writer; it wakes at once), or, only when no daemon runs, directly, when this user may
/// write the file (README "How the CLI reaches the daemon").
package struct DaemonWriter {
    package let databasePath: String
    /// For writing directly: `upstream_id_field`, `max_message_size`, `outbox_ttl`, the receipts.
    package let configuration: Configuration
    package var socketPath: String { Configuration.controlSocket(forDatabase: databasePath) }

    package init(databasePath: String, configuration: Configuration) {
        self.databasePath = databasePath
        self.configuration = configuration
    }

    /// Who did the write.
    package enum Route: Equatable {
        case daemon
        /// No daemon runs; the CLI wrote, and the daemon sends it once it starts.
        case direct
    }

    package struct Queued: Equatable {
        package var rowID: Int64
        package var messageID: String
        package var route: Route
    }

    /// Queues a message (or a request) for the server; returns once it is committed.
    package func queue(_ text: String, kind: OutboxKind, timeout: Duration?) throws(CommandFailure) -> Queued {
        let argument = timeout.map { String($0.milliseconds) } ?? "-"
        switch try call(verb: kind == .request ? "request" : "send", argument: argument, body: text) {
        case .answered(let body):
            let words = body.split(separator: " ", maxSplits: 1)
            guard words.count == 2, let rowID = Int64(words[0]) else {
                throw CommandFailure(.ioError, "the daemon's answer could not be read: \(body)")
            }
            return Queued(rowID: rowID, messageID: String(words[1]), route: .daemon)
        case .notRunning:
            return try queueDirectly(text, kind: kind, timeout: timeout)
        }
    }

    /// Marks notifications read (nil: all) and queues their receipts.
    package func markRead(ids: [Int64]?) throws(CommandFailure) -> (NotificationMarker.Outcome, Route) {
        let body = ids.map { $0.map(String.init).joined(separator: " ") } ?? "all"
        switch try call(verb: "mark-read", body: body) {
        case .answered(let text):
            let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            let counts = lines.first?.split(separator: " ").compactMap { Int($0) } ?? []
            guard counts.count == 3 else { throw CommandFailure(.ioError, "the daemon's answer could not be read: \(text)") }
            let missing = lines.count > 1 ? lines[1].split(separator: " ").compactMap { Int64($0) } : []
            return (NotificationMarker.Outcome(marked: counts[0], alreadyRead: counts[1], missing: missing, receipts: counts[2]), .daemon)
        case .notRunning:
            return (try markReadDirectly(ids: ids), .direct)
        }
    }

    private enum Answer {
        case answered(String)
        case notRunning
    }

    private func call(verb: String, argument: String = "-", body: String) throws(CommandFailure) -> Answer {
        do {
            let (status, text) = try ControlClient.call(path: socketPath, verb: verb, argument: argument, body: body)
            guard status == 0 else { throw CommandFailure(Self.kind(status), text) }
            return .answered(text)
        } catch let failure as CommandFailure {
            throw failure
        } catch ControlClient.Failure.notRunning {
            return .notRunning
        } catch ControlClient.Failure.permissionDenied(let path) {
            throw CommandFailure(
                .permissionDenied, "permission denied to connect to intrapushd at \(path); run as root or as a member of the group that owns it")
        } catch {
            throw CommandFailure(.ioError, "cannot reach intrapushd: \(error)")
        }
    }

    private static func kind(_ status: Int32) -> CommandFailure.Kind {
        switch status {
        case 65: .dataError
        case 75: .temporaryFailure
        case 1: .notFound
        default: .ioError
        }
    }
}
