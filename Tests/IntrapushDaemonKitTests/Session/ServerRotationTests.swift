// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// The order of the servers, the holds they ask for, and the primary's reachability, without the
/// session around them.
@Suite struct ServerRotationTests {
    let now = ContinuousClock.now

    @Test("one server: what it asked for replaces the backoff; it stays the server")
    func oneServer() {
        var rotation = ServerRotation(serverCount: 1)
        rotation.failed(at: now)
        #expect(rotation.next(at: now, heldBack: .seconds(30), backoffDelay: nil) == .seconds(30))
        #expect(rotation.next(at: now, heldBack: nil, backoffDelay: .seconds(2)) == .seconds(2))
        #expect(rotation.current == 0 && !rotation.isOnFallback)
        #expect(rotation.primaryUnreachableSince == now)
    }

    @Test("a failure moves on in order, after the backoff, and wraps round")
    func inOrder() {
        var rotation = ServerRotation(serverCount: 3)
        var visited: [Int] = []
        for _ in 0..<4 {
            rotation.failed(at: now)
            #expect(rotation.next(at: now, heldBack: nil, backoffDelay: .seconds(1)) == .seconds(1))
            visited.append(rotation.current)
        }
        #expect(visited == [1, 2, 0, 1])
        #expect(rotation.isOnFallback)
    }

    @Test("a server's hold keeps it out of the order until it ends; all held: the one free first")
    func holds() {
        var rotation = ServerRotation(serverCount: 2)
        rotation.failed(at: now)
        // The primary asks for a minute: the fallback is next, after the backoff.
        #expect(rotation.next(at: now, heldBack: .seconds(60), backoffDelay: .seconds(1)) == .seconds(1))
        #expect(rotation.current == 1)
        // The fallback asks for two minutes: both held, the primary is free first, in 59 s.
        let later = now + .seconds(1)
        rotation.failed(at: later)
        #expect(rotation.next(at: later, heldBack: .seconds(120), backoffDelay: .seconds(1)) == .seconds(59))
        #expect(rotation.current == 0)
        // Reached, its hold is gone; the fallback's still runs (to 121 s): the primary again.
        rotation.connected()
        rotation.failed(at: now + .seconds(70))
        #expect(rotation.next(at: now + .seconds(70), heldBack: nil, backoffDelay: .seconds(1)) == .seconds(1))
        #expect(rotation.current == 0)
    }

    @Test("the primary is unreachable from its first failure until it is reached again")
    func primaryReachability() {
        var rotation = ServerRotation(serverCount: 2)
        rotation.failed(at: now)
        _ = rotation.next(at: now, heldBack: nil, backoffDelay: .seconds(1))
        rotation.connected()  // to the fallback
        #expect(rotation.primaryUnreachableSince == now)
        rotation.primaryFailed(at: now + .seconds(300))
        #expect(rotation.primaryUnreachableSince == now, "the first failure counts")
        rotation.returnedToPrimary()
        #expect(rotation.current == 0 && rotation.primaryUnreachableSince == nil)
    }

    @Test("new settings start from the primary; another list forgets the old holds")
    func restart() {
        var rotation = ServerRotation(serverCount: 2)
        rotation.failed(at: now)
        _ = rotation.next(at: now, heldBack: .seconds(600), backoffDelay: .seconds(1))
        rotation.restart()
        #expect(rotation.current == 0 && rotation.primaryUnreachableSince == now)
        rotation.restart(serverCount: 3)
        #expect(rotation == ServerRotation(serverCount: 3))
    }
}
