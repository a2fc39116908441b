// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushConfiguration
import IntrapushStore
import IntrapushSupport

/// Writing without a daemon: the same checks and the same SQL as the daemon's, on a
/// connection of the CLI's own; refused with 69 when this user may not write the file.
extension WriteAccess {
    func queueDirectly(_ text: String, kind: OutboxKind, timeout: Duration?) throws(CommandFailure) -> Queued {
        let now = WallClock.nowMilliseconds()
        let submission: OutboxSubmission
        do {
            submission = try configuration.outbox.submission(text, kind: kind, timeout: timeout, queuedAt: now)
        } catch {
            throw CommandFailure(error)
        }
        let result = try writing("queue the message") { connection in
            try connection.transaction { try OutboxTable(connection: connection).enqueue(submission, at: now) }
        }
        switch result {
        case .success(let rowID):
            wakeDaemonIfStarted()
            return Queued(rowID: rowID, messageID: submission.message.id, route: .direct)
        case .failure(let refusal):
            throw CommandFailure(refusal)
        }
    }

    func markReadDirectly(ids: [Int64]?) throws(CommandFailure) -> NotificationMarker.Outcome {
        let receipts = configuration.outbox.receipts
        let outcome = try writing("mark notifications read") { connection in
            let marker = NotificationMarker(connection: connection)
            let now = WallClock.nowMilliseconds()
            let viewer = Viewer.currentUser(seesEverything: true)
            return try ids.map { try marker.markRead(ids: $0, for: viewer, at: now, receipts: receipts) }
                ?? marker.markAllRead(for: viewer, at: now, receipts: receipts)
        }
        if outcome.receipts > 0 { wakeDaemonIfStarted() }
        return outcome
    }

    /// A daemon that started while we wrote may have read the outbox before our commit.
    private func wakeDaemonIfStarted() {
        _ = try? LocalAPIClient(path: socketPath).call(OutboxInterface.Wake.self, .init(), timeout: .seconds(2))
    }

    private func writing<Result>(_ what: String, _ body: (SQLiteConnection) throws -> Result) throws(CommandFailure) -> Result {
        try DatabaseLocator.requireExisting(databasePath)
        do {
            let connection = try SQLiteConnection(path: databasePath, mode: .readWrite)
            guard try Schema.migrator.checkVersion(of: connection) >= Schema.latestVersion else {
                // An older daemon made it, or one starting now has not migrated it yet.
                throw CommandFailure(
                    .unavailable,
                    "intrapushd is not answering, and \(databasePath) is not ready for writing yet (intrapushd brings it up to date when it starts); start intrapushd, or try again once it has started: systemctl start intrapush")
            }
            return try body(connection)
        } catch let refusal as OutboxRefusal {
            throw CommandFailure(refusal)
        } catch {
            let failure = CommandFailure.database(error, path: databasePath, writing: true)
            guard failure.kind == .permissionDenied else { throw failure }
            throw CommandFailure(
                .unavailable,
                "intrapushd is not running, and this user may not write \(databasePath) to \(what) without it; nothing changed. Start it (systemctl start intrapush), or run as root")
        }
    }
}
