// SPDX-License-Identifier: Apache-2.0

/// Whose eyes a read or a mark goes through: which notifications they may see, and whose read
/// marks count (marks are per person since schema 6: `notification_reads`).
package struct Viewer: Sendable, Equatable {
    /// The uid whose marks count. Marks made before they were per person count for everyone
    /// (`reader` -1 in `notification_reads`).
    package var userID: Int64
    /// For `{user}` in a read receipt; `nil` for a uid the user database does not know.
    package var userName: String?
    /// `nil`: every notification (an administrator); else only those for everyone and those
    /// addressed to one of these names (the user's, their groups').
    package var visibleNames: [String]?

    package init(userID: Int64, userName: String?, visibleNames: [String]?) {
        self.userID = userID
        self.userName = userName
        self.visibleNames = visibleNames
    }

    /// The `reader` value of marks made before marks were per person: read for everyone.
    package static let everyone: Int64 = -1

    /// The SQL condition (no leading AND) on `notifications` that selects what this viewer may
    /// see; `nil` when they see everything.
    package func visibility(schemaVersion: Int) -> (sql: String, values: [SQLValue])? {
        guard let visibleNames else { return nil }
        return Self.addressed(to: visibleNames, schemaVersion: schemaVersion)
    }

    /// The condition on `notifications` that selects what this viewer may NOT see: rows
    /// addressed to others only (which `notifications_addressed` holds); `nil` when they see
    /// everything.
    package func hiddenCondition() -> (sql: String, values: [SQLValue])? {
        guard let visibleNames else { return nil }
        let line = "instr(char(10) || recipients || char(10), char(10) || ? || char(10)) > 0"
        let matches = visibleNames.isEmpty ? "" : " AND NOT (" + Array(repeating: line, count: visibleNames.count).joined(separator: " OR ") + ")"
        return ("recipients IS NOT NULL" + matches, visibleNames.map { .text($0) })
    }

    /// Notifications for everyone or addressed to one of `names` (whole lines of the column:
    /// "ann" does not match "joanne"); `nil` for a file without the column (all for everyone).
    package static func addressed(to names: [String], schemaVersion: Int) -> (sql: String, values: [SQLValue])? {
        guard schemaVersion >= 5 else { return nil }
        let line = "instr(char(10) || recipients || char(10), char(10) || ? || char(10)) > 0"
        let sql = "(recipients IS NULL" + String(repeating: " OR " + line, count: names.count) + ")"
        return (sql, names.map { .text($0) })
    }

    /// An expression for when this viewer read the row of `notifications`, NULL while unread
    /// for them. The uid is an integer of ours, so it is written into the SQL, not bound: the
    /// expression can stand anywhere in a statement without moving its placeholders.
    package func readAtExpression(schemaVersion: Int) -> String {
        guard schemaVersion >= 6 else { return "read_at" }
        return "(SELECT min(r.read_at) FROM notification_reads r WHERE r.notification_id = notifications.id AND r.reader IN (\(userID), \(Self.everyone)))"
    }

    /// The condition that the row of `notifications` is unread for this viewer.
    package func unreadCondition(schemaVersion: Int) -> String {
        guard schemaVersion >= 6 else { return "read_at IS NULL" }
        return "NOT EXISTS (SELECT 1 FROM notification_reads r WHERE r.notification_id = notifications.id AND r.reader IN (\(userID), \(Self.everyone)))"
    }
}
