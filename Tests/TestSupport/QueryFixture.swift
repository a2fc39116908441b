// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore

/// A real database made by the production store and migrations, with notifications 1…count
/// received one second apart from `start`; every third (ids 3, 6, …) marked read.
package struct QueryFixture {
    package static let start: Int64 = 1_700_000_000_000
    package let directory: TemporaryDirectory
    package let path: String

    package init(count: Int = 30, title: (Int) -> String? = { "Title \($0)" }, body: (Int) -> String? = { "body of \($0)" }) throws {
        directory = try TemporaryDirectory("store")
        path = directory.file()
        let store = try NotificationStore(path: path)
        let pushes = (1...count).map { index in
            Push(
                payload: .text(#"{"id":"m-\#(index)","extra":"payload-\#(index)"}"#),
                messageID: "m-\(index)", title: title(index), body: body(index),
                receivedAt: Self.start + Int64(index - 1) * 1000)
        }
        _ = try store.store(pushes, liveState: nil)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("UPDATE notifications SET read_at = \(Self.start + 999_000) WHERE id % 3 = 0")
    }

    package func reader() throws -> NotificationReader { try NotificationReader(path: path) }

    package static func time(ofIndex index: Int) -> Int64 { start + Int64(index - 1) * 1000 }
}
