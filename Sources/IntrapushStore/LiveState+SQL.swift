// SPDX-License-Identifier: Apache-2.0

extension LiveState {
    /// The fields with a column in `daemon_state` at `schemaVersion`, in the order of `fields`.
    static func columns(schemaVersion: Int = Schema.latestVersion) -> [Field] {
        fields.filter { field in field.column.map { $0 <= schemaVersion } ?? false }
    }

    /// The fields a live-state write sets: the pruner's are left out, since it writes them in the
    /// transaction of each DELETE, so that they survive restarts and a stale copy cannot undo them.
    static let writtenColumns = fields.filter { if case .written = $0.keeping { true } else { false } }

    /// Upserts the single `daemon_state` row; parameters in the order of `writtenColumns`.
    static let upsertSQL: String = {
        let names = writtenColumns.map(\.name)
        return """
            INSERT INTO daemon_state (id, \(names.joined(separator: ", ")))
            VALUES (1, \(Array(repeating: "?", count: names.count).joined(separator: ", ")))
            ON CONFLICT(id) DO UPDATE SET \(names.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            """
    }()

    static func selectSQL(schemaVersion: Int = Schema.latestVersion) -> String {
        "SELECT \(columns(schemaVersion: schemaVersion).map(\.name).joined(separator: ", ")) FROM daemon_state WHERE id = 1"
    }

    /// Reads the daemon's live state through any connection, read-only ones included
    /// (this is what `intrapush status` uses). A database of an older schema version reads with
    /// the newer fields at their defaults.
    ///
    /// - Returns: `nil` when no daemon has written its state yet.
    package static func read(from connection: SQLiteConnection) throws -> LiveState? {
        let version = try connection.userVersion()
        return try read(with: connection.prepare(selectSQL(schemaVersion: version)), schemaVersion: version)
    }

    /// The row through a statement prepared from `selectSQL(schemaVersion:)` of the same version.
    static func read(with statement: Statement, schemaVersion: Int = Schema.latestVersion) throws -> LiveState? {
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        var state = LiveState(state: .connecting, updatedAt: 0)
        for (index, field) in columns(schemaVersion: schemaVersion).enumerated() {
            field.set(&state, field.kind == .text ? .text(statement.string(at: index)) : .integer(statement.optionalInt64(at: index)))
        }
        return state
    }

    /// Writes this state through a statement prepared from `upsertSQL`.
    func write(with statement: Statement) throws {
        defer { statement.reset() }
        for (index, field) in Self.writtenColumns.enumerated() {
            switch field.get(self) {
            case .text(let text): try statement.bind(text, at: index + 1)
            case .integer(let integer): try statement.bind(integer, at: index + 1)
            }
        }
        try statement.step()
    }
}
