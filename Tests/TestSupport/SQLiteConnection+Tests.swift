// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

extension SQLiteConnection {
    /// The first column of every row of `sql`, as text.
    package func column(_ sql: String) throws -> [String?] {
        let statement = try prepare(sql)
        var values: [String?] = []
        while try statement.step() { values.append(statement.string(at: 0)) }
        return values
    }

    package func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        try statement.step()
        return statement.int64(at: 0)
    }
}
