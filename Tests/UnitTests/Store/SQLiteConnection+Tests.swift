import Foundation

@testable import IntrapushStore

extension SQLiteConnection {
    /// The first column of every row of `sql`, as text.
    func column(_ sql: String) throws -> [String?] {
        let statement = try prepare(sql)
        var values: [String?] = []
        while try statement.step() { values.append(statement.string(at: 0)) }
        return values
    }

    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        try statement.step()
        return statement.int64(at: 0)
    }
}

extension Push {
    static func text(_ payload: String, id: String?, at time: Int64 = 1_700_000_000_000) -> Push {
        Push(payload: .text(payload), messageID: id, title: nil, body: nil, receivedAt: time)
    }
}
