// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("TCP liveness from dead_peer_timeout")
struct TCPLivenessTests {
    @Test("the default 30 s: unacknowledged data fails after 30 s, keepalive probes from 10 s, every 4 s, three")
    func defaults() {
        let liveness = TCPLiveness(deadPeerTimeout: .seconds(30))
        #expect(liveness == TCPLiveness(keepaliveIdleSeconds: 10, keepaliveIntervalSeconds: 4, keepaliveProbes: 3, userTimeoutMilliseconds: 30_000))
    }

    @Test("short timeouts round up to whole seconds of at least 1 (the kernel's unit); the user timeout keeps milliseconds")
    func short() {
        let liveness = TCPLiveness(deadPeerTimeout: .milliseconds(600))
        #expect(liveness == TCPLiveness(keepaliveIdleSeconds: 1, keepaliveIntervalSeconds: 1, keepaliveProbes: 3, userTimeoutMilliseconds: 600))
    }
}

extension TCPLiveness {
    init(keepaliveIdleSeconds: Int32, keepaliveIntervalSeconds: Int32, keepaliveProbes: Int32, userTimeoutMilliseconds: UInt32) {
        self.init(deadPeerTimeout: .seconds(1))
        self.keepaliveIdleSeconds = keepaliveIdleSeconds
        self.keepaliveIntervalSeconds = keepaliveIntervalSeconds
        self.keepaliveProbes = keepaliveProbes
        self.userTimeoutMilliseconds = userTimeoutMilliseconds
    }
}
