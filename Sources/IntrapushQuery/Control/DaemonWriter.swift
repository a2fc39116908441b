import IntrapushInterface
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
        let argument = ControlRequestHeader.timeoutArgument(timeout)
        switch try call(verb: kind == .request ? "request" : "send", argument: argument, body: text) {
        case .answered(let body):
            guard let (rowID, messageID) = ControlBodies.parseQueued(body) else {
                throw CommandFailure(.ioError, "the daemon's answer could not be read: \(body)")
            }
            return Queued(rowID: rowID, messageID: messageID, route: .daemon)
        case .notRunning:
            return try queueDirectly(text, kind: kind, timeout: timeout)
        }
    }

    /// Marks notifications read (nil: all) and queues their receipts.
    package func markRead(ids: [Int64]?) throws(CommandFailure) -> (NotificationMarker.Outcome, Route) {
        switch try call(verb: "mark-read", body: ControlBodies.markReadRequest(ids: ids)) {
        case .answered(let text):
            guard let outcome = ControlBodies.parseMarkReadAnswer(text) else {
                throw CommandFailure(.ioError, "the daemon's answer could not be read: \(text)")
            }
            return (outcome, .daemon)
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
