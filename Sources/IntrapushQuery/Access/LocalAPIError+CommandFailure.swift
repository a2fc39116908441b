// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore

/// An interface's errors, in the CLI's sentences and exit statuses.
package protocol CommandFailureConvertible {
    var commandFailure: CommandFailure { get }
}

extension LocalAPIError where Failure: CommandFailureConvertible {
    /// The CLI's failure for a call that did not give its reply; never "not running" when the
    /// daemon answered.
    package var commandFailure: CommandFailure {
        switch self {
        case .unreachable(.closedUnanswered) where Failure.self == OutboxInterface.Failure.self:
            // Not sent again: a second copy of the message could be queued. Not 75 either, which
            // says of a message that it waits already (a duplicate id).
            CommandFailure(
                .ioError,
                "intrapushd closed the connection before answering (it may be restarting); the message may not have been queued: see intrapush outbox, then try again")
        case .unreachable(let failure): failure.commandFailure
        case .failed(let failure): failure.commandFailure
        case .service(let failure): failure.commandFailure
        case .unexpected(let what): CommandFailure(.ioError, "\(what); is intrapush the same version as intrapushd?")
        }
    }
}

extension VarlinkConnection.Failure {
    package var commandFailure: CommandFailure {
        switch self {
        case .notRunning(let path):
            CommandFailure(.unavailable, "intrapushd is not running (nothing answers on \(path)); start it: sudo systemctl start intrapush")
        case .permissionDenied(let path):
            CommandFailure(.permissionDenied, "permission denied to connect to intrapushd at \(path)")
        case .noAnswer:
            CommandFailure(.temporaryFailure, "intrapushd did not answer in time; see its log (journalctl -u intrapush)")
        case .closedUnanswered:
            CommandFailure(
                .temporaryFailure,
                "intrapushd closed the connection before answering, twice (it may be restarting); try again in a moment, or see its log (journalctl -u intrapush)")
        case .failed(_, let reason):
            CommandFailure(.ioError, "cannot reach intrapushd: \(reason)")
        }
    }
}

/// Busy is the caller's own share of the daemon (connections, queries): exit 75, try again later.
private func busyFailure(_ message: String) -> CommandFailure {
    CommandFailure(.temporaryFailure, "intrapushd is busy: \(message)")
}

extension VarlinkServiceInterface.Failure: CommandFailureConvertible {
    package var commandFailure: CommandFailure {
        switch self {
        case .invalidParameter(let parameter):
            CommandFailure(.dataError, "intrapushd did not accept the parameter \(parameter); is intrapush the same version as intrapushd?")
        case .interfaceNotFound(let name), .methodNotFound(let name), .methodNotImplemented(let name):
            CommandFailure(.dataError, "intrapushd does not know \(name); is intrapush the same version as intrapushd?")
        case .permissionDenied:
            CommandFailure(.permissionDenied, "intrapushd refused the call")
        case .expectedMore:
            CommandFailure(.dataError, "intrapushd expected a stream to be asked for; is intrapush the same version as intrapushd?")
        }
    }
}

extension NotificationsInterface.Failure: CommandFailureConvertible {
    package var commandFailure: CommandFailure {
        switch self {
        case .noSuchNotification(_, let message): CommandFailure(.notFound, message)
        case .permissionDenied(let message): CommandFailure(.permissionDenied, message)
        case .busy(let message): busyFailure(message)
        case .storeFailed(let message): CommandFailure(.ioError, message)
        }
    }
}

extension DaemonInterface.Failure: CommandFailureConvertible {
    package var commandFailure: CommandFailure {
        switch self {
        case .permissionDenied(let message): CommandFailure(.permissionDenied, message)
        case .busy(let message): busyFailure(message)
        case .storeFailed(let message): CommandFailure(.ioError, message)
        }
    }
}

extension OutboxInterface.Failure: CommandFailureConvertible {
    package var commandFailure: CommandFailure {
        switch self {
        case .permissionDenied(let message): CommandFailure(.permissionDenied, message)
        case .refused(let reason, let message):
            CommandFailure(OutboxRefusal.exitStatus(reason: reason) == CommandFailure.Kind.dataError.rawValue ? .dataError : .temporaryFailure, message)
        case .requestExpired(_, let message): CommandFailure(.temporaryFailure, message)
        case .busy(let message): busyFailure(message)
        case .storeFailed(let message): CommandFailure(.ioError, message)
        }
    }
}

extension LocalAPIClient {
    /// A connection for the CLI; `nil` when no daemon listens.
    package static func connectIfRunning(path: String) throws(CommandFailure) -> LocalAPIClient? {
        do {
            return try LocalAPIClient(path: path)
        } catch .notRunning {
            return nil
        } catch {
            throw error.commandFailure
        }
    }
}
