// SPDX-License-Identifier: Apache-2.0

import Foundation
import IntrapushInterface
import NIOConcurrencyHelpers
import NIOPosix
import Testing

@testable import IntrapushDaemonKit

/// The callers' names on real threads: a directory that stalls on one person's look-up
/// delays that person only.
@Suite("The callers' names")
struct CallerNamesTests {
    static func identity(_ uid: UInt32) -> PeerIdentity { PeerIdentity(userID: uid, groupID: uid, processID: 1, groupIDs: [uid]) }

    @Test("a look-up the directory stalls holds its own caller; another's is answered meanwhile")
    func stalledDirectory() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let released = ConditionLock(value: false)
        let names = CallerNames(eventLoop: loop) { key in
            if key.userID == 1 {
                // The stalled directory: answers once the test has seen enough (or after a minute,
                // should the test fail before it says so). The lock is held only if it was taken.
                if released.lock(whenValue: true, timeoutSeconds: 60) { released.unlock() }
            }
            return .init(userName: "u\(key.userID)", groupNames: [])
        }
        let stalledDone = NIOLockedValueBox(false)
        let stalled = try await loop.submit {
            let future = names.caller(of: Self.identity(1))
            future.whenComplete { _ in stalledDone.withLockedValue { $0 = true } }
            return future
        }.get()
        let other = try await loop.submit { names.caller(of: Self.identity(2)) }.get().get()
        #expect(other.userName == "u2")
        let isStalledDone = stalledDone.withLockedValue { $0 }
        #expect(!isStalledDone, "the stalled look-up is still under way when the other is answered")
        released.lock()
        released.unlock(withValue: true)
        #expect(try await stalled.get().userName == "u1")
        try await loop.submit { names.stop() }.get()
        try await group.shutdownGracefully()
    }
}
