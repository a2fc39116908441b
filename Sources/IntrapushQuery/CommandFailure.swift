// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore

/// Why a CLI command failed: one sentence for stderr and the exit status (those of intrapush(1),
/// sysexits.h for the rest).
package struct CommandFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Int32, Sendable {
        case notFound = 1
        case usage = 2
        /// Bad data (EX_DATAERR): not an intrapush database, damaged, or a newer schema; a
        /// message for the server that is not a JSON object, or too large.
        case dataError = 65
        /// No database file (EX_NOINPUT).
        case noDatabase = 66
        /// intrapushd is not running and the message could not be queued without it (EX_UNAVAILABLE).
        case unavailable = 69
        /// The database could not be read or written (EX_IOERR).
        case ioError = 74
        /// Try again later (EX_TEMPFAIL): a message with that id still waits; no reply in time.
        case temporaryFailure = 75
        /// Permission denied (EX_NOPERM).
        case permissionDenied = 77
        /// The configuration file is broken (EX_CONFIG).
        case configuration = 78
    }

    package let kind: Kind
    package let message: String
    package var exitStatus: Int32 { kind.rawValue }
    package var description: String { message }

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A message for the server that was not queued: 65 when the caller must change it, 75 when
    /// an earlier one with its id still waits.
    package init(_ refusal: OutboxRefusal) {
        self.init(refusal.exitStatus == Kind.dataError.rawValue ? .dataError : .temporaryFailure, refusal.message)
    }

    /// Translates what opening or querying the database threw into a sentence and a status.
    package static func database(_ error: any Error, path: String, writing: Bool = false) -> CommandFailure {
        switch error {
        case let failure as CommandFailure:
            return failure
        case let error as SchemaVersionError:
            return CommandFailure(.dataError, "\(path): \(error)")
        case let error as UninitializedDatabaseError:
            return CommandFailure(.noDatabase, error.description)
        case let error as DatabaseError:
            return database(error, path: path, writing: writing)
        default:
            return CommandFailure(.ioError, "\(path): \(error)")
        }
    }

    private static func database(_ error: DatabaseError, path: String, writing: Bool) -> CommandFailure {
        if error.isCorrupt {
            return CommandFailure(.dataError, "\(path) is not an intrapush database, or it is damaged (\(error.message))")
        }
        if error.isReadOnly || (error.isCannotOpen && access(path, writing ? W_OK : R_OK) != 0 && errno == EACCES) {
            let need = writing ? "write" : "read"
            return CommandFailure(
                .permissionDenied,
                "permission denied to \(need) \(path); run as root or as a member of the group that owns it")
        }
        if error.isCannotOpen, access(path, F_OK) != 0 {
            return noDatabase(path)
        }
        if error.isBusy {
            return CommandFailure(.ioError, "\(path) stayed locked by another process; try again")
        }
        return CommandFailure(.ioError, "cannot use \(path): \(error.message)")
    }

    static func noDatabase(_ path: String) -> CommandFailure {
        CommandFailure(
            .noDatabase,
            "no database at \(path); is intrapushd installed and has it run? (or pass --database PATH)")
    }
}
