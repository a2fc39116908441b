// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    /// `metrics_listen` may face more than Prometheus: its connections are capped.
    @Suite("Metrics listener: bounded connections")
    struct MetricsListenerAbuseTests {
        /// A TCP connection to 127.0.0.1:`port`.
        func connectTCP(_ port: Int) throws -> Int32 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
            return descriptor
        }

        /// Whether the peer closed `descriptor` within `seconds` (a read returns 0).
        func isClosedByPeer(_ descriptor: Int32, within seconds: Int) -> Bool {
            var limit = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            return read(descriptor, &byte, 1) == 0
        }

        @Test("beyond 16 idle connections the next is closed at once; scraping works again once they go")
        func connectionCap() async throws {
            let directory = try TemporaryDirectory("it")
            let port = try freeTCPPort()
            let (_, _, server, daemon) = try await startConnected(extra: ["metrics_listen": "\"127.0.0.1:\(port)\""], in: directory)
            defer { withExtendedLifetime((server, daemon)) {} }
            try await eventually("the metrics listener to answer") {
                (try? await shell("curl -sS --fail -o /dev/null http://127.0.0.1:\(port)/metrics", in: directory)) != nil
            }
            let held = try (0..<16).map { _ in try connectTCP(port) }
            defer { held.forEach { close($0) } }
            // The kernel accepts before the daemon sees the connection: wait until all 16 count.
            try await eventually("the 17th connection to be closed by the daemon") {
                let extra = try connectTCP(port)
                defer { close(extra) }
                return isClosedByPeer(extra, within: 2)
            }
            for descriptor in held { close(descriptor) }
            try await eventually("a scrape to succeed again") {
                (try? await shell("curl -sS --fail -o /dev/null http://127.0.0.1:\(port)/metrics", in: directory)) != nil
            }
        }
    }
}
