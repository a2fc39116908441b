import Foundation

@testable import IntrapushStore

/// A fresh directory under the system's temporary directory, removed with its content on release.
final class StoreTestDirectory {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("intrapush-store-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        path = url.path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String = "notifications.sqlite3") -> String {
        path + "/" + name
    }
}

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
