import IntrapushInterface
import IntrapushStore
import IntrapushSupport

/// The CLI's calls of the daemon's local API (Varlink on the socket beside the database), with
/// the daemon's errors turned into the CLI's sentences and exit statuses.
package struct LocalAPI: Sendable {
    package let socketPath: String

    package init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Why no call got through.
    package enum Unreachable: Error, Equatable {
        case notRunning
    }

    /// One call and its replies (one, or a stream's, each handed to `each` as it comes);
    /// `Unreachable.notRunning` when no daemon listens.
    package func call(
        _ method: String, _ parameters: [String: JSONValue] = [:], more: Bool = false, timeout: Duration? = nil,
        each: (VarlinkReply) throws(CommandFailure) -> Void
    ) throws(CommandFailure) -> Bool {
        let connection: VarlinkConnection
        do {
            connection = try VarlinkConnection(path: socketPath)
        } catch .notRunning {
            return false
        } catch {
            throw Self.failure(error)
        }
        do {
            try connection.send(VarlinkCall(method: method, parameters: parameters, more: more))
            while true {
                let reply = try connection.nextReply(timeout: timeout)
                if let error = reply.error { throw Self.failure(VarlinkError(error, reply.parameters)) }
                try each(reply)
                guard reply.continues else { return true }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch let failure as VarlinkConnection.Failure {
            throw Self.failure(failure)
        } catch {
            throw CommandFailure(.ioError, "\(error)")
        }
    }

    /// One call with one reply; `nil` when no daemon listens.
    package func call(_ method: String, _ parameters: [String: JSONValue] = [:], timeout: Duration? = nil) throws(CommandFailure) -> VarlinkReply? {
        var answer: VarlinkReply?
        guard try call(method, parameters, timeout: timeout, each: { answer = $0 }) else { return nil }
        return answer
    }

    /// The same, for a caller that cannot go on without the daemon.
    package func require(_ method: String, _ parameters: [String: JSONValue] = [:]) throws(CommandFailure) -> VarlinkReply {
        guard let reply = try call(method, parameters) else { throw notRunning() }
        return reply
    }

    package func notRunning() -> CommandFailure {
        CommandFailure(
            .unavailable,
            "intrapushd is not running, and only administrators read the database itself; ask an administrator to start it (sudo systemctl start intrapush)")
    }

    static func failure(_ failure: VarlinkConnection.Failure) -> CommandFailure {
        switch failure {
        case .notRunning(let path):
            CommandFailure(.unavailable, "intrapushd is not running (nothing answers on \(path)); start it: sudo systemctl start intrapush")
        case .permissionDenied(let path):
            CommandFailure(.permissionDenied, "permission denied to connect to intrapushd at \(path)")
        case .noAnswer:
            CommandFailure(.temporaryFailure, "intrapushd did not answer in time; see its log (journalctl -u intrapush)")
        case .failed(_, let reason):
            CommandFailure(.ioError, "cannot reach intrapushd: \(reason)")
        }
    }

    /// The daemon's named errors, in the CLI's exit statuses.
    static func failure(_ error: VarlinkError) -> CommandFailure {
        let message = error.message ?? "intrapushd answered \(error.name)"
        switch error.name.split(separator: ".").last ?? "" {
        case "PermissionDenied": return CommandFailure(.permissionDenied, message)
        case "NoSuchNotification": return CommandFailure(.notFound, message)
        case "Busy", "RequestExpired": return CommandFailure(.temporaryFailure, message)
        case "Refused":
            let status = OutboxRefusal.exitStatus(reason: error.parameters["reason"]?.string ?? "")
            return CommandFailure(status == CommandFailure.Kind.dataError.rawValue ? .dataError : .temporaryFailure, message)
        case "InvalidParameter":
            return CommandFailure(.dataError, "intrapushd did not accept the parameter \(error.parameters["parameter"]?.string ?? "?"); is intrapush the same version as intrapushd?")
        case "MethodNotFound", "InterfaceNotFound", "InvalidMessage":
            return CommandFailure(.dataError, "\(message); is intrapush the same version as intrapushd?")
        default:
            return CommandFailure(.ioError, message)
        }
    }
}
