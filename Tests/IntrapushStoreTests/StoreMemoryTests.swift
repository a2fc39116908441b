// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushStore

@Suite("Store memory")
struct StoreMemoryTests {
    @Test("releaseMemory empties the page cache a burst filled, and the store goes on")
    func releasesPageCache() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        let body = String(repeating: "x", count: 300)
        let pushes = (0..<5_000).map { Push.text(#"{"id":"m\#($0)","body":"\#(body)"}"#, id: "m\($0)", at: Int64($0)) }
        _ = try store.store(pushes, liveState: nil)
        let filled = store.connection.pageCacheBytes
        #expect(filled > 1_000_000)
        store.releaseMemory()
        #expect(store.connection.pageCacheBytes < filled / 10)
        #expect(try store.store([.text("after", id: "after", at: 1)], liveState: nil) == [.inserted(rowID: 5_001)])
    }
}
