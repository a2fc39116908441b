// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

extension Integration {
    @Suite("TCP liveness on the daemon's socket")
    struct TCPLivenessSocketTests {
        /// `ss -o` shows the keepalive timer the kernel armed: the kernel's default would be two
        /// hours; ours is dead_peer_timeout/3 (heartbeats reset it, so it stays below that).
        @Test("the daemon's connection carries keepalive timers derived from dead_peer_timeout")
        func keepaliveTimer() async throws {
            let (directory, _, server, daemon) = try await startConnected(extra: ["dead_peer_timeout": #""9s""#])
            let line = try await shell("ss -tnoH state established dst 127.0.0.1:\(server.port)", in: directory)
            // timer:(keepalive,2.9sec,0) with a 3 s idle time; never minutes.
            let timer = try #require(line.firstMatch(of: /timer:\(keepalive,([0-9.]+)(ms|sec),/), "\(line)")
            let seconds = Double(timer.1)! / (timer.2 == "ms" ? 1000 : 1)
            #expect(seconds <= 3, "\(line)")
            _ = daemon
        }
    }
}
