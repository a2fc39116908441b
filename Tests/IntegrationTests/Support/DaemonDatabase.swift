// SPDX-License-Identifier: Apache-2.0

@testable import IntrapushInterface
import IntrapushStore

/// The daemon's database as a test reads it: each question on a read-only connection of its own.
struct DaemonDatabase {
    let path: String

    func integer(_ sql: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        let statement = try connection.prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(at: 0)
    }

    func strings(_ sql: String) throws -> [String?] {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        let statement = try connection.prepare(sql)
        var values: [String?] = []
        while try statement.step() {
            values.append(statement.string(at: 0))
        }
        return values
    }

    func liveState() throws -> LiveState? {
        try LiveState.read(from: SQLiteConnection(path: path, mode: .readOnly))
    }
}
