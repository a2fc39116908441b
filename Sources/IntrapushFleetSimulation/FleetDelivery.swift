// SPDX-License-Identifier: Apache-2.0

import IntrapushDevServer
import NIOCore
import Synchronization

/// A fleet under one token against a running server (protocol §10): `hosts` WebSocket clients,
/// each with an identity of its own, then `pushes` pushes for their organisation. Every host
/// must read every push exactly once, and acknowledge it; the server's statistics must agree.
///
/// The clients acknowledge as they read and store nothing: what is measured is the server's
/// keeping of hosts apart, not a daemon's database (the integration tests run real daemons).
package struct FleetDelivery: Sendable {
    package var server: ServerAddress
    package var token: String
    package var org: String
    package var hosts: Int
    package var pushes: Int
    /// Connecting, and then delivering, may each take this long before the run fails.
    package var timeout: Duration

    package init(server: ServerAddress, token: String, org: String, hosts: Int, pushes: Int, timeout: Duration = .seconds(120)) {
        self.server = server
        self.token = token
        self.org = org
        self.hosts = hosts
        self.pushes = pushes
        self.timeout = timeout
    }

    /// What the hosts read, and what the server counted.
    package struct Report: Sendable, Equatable {
        package var hosts: Int
        package var pushes: Int
        /// Hosts that read each push exactly once and nothing else.
        package var exactHosts: Int
        /// Pushes a host read more than once, and pushes a host never read, over all hosts.
        package var duplicates: Int
        package var missing: Int
        /// Pushes the hosts read, over all of them.
        package var read: Int
        /// The server's deliveries (sent again included) and acknowledgements to this run's hosts.
        package var serverDeliveries: Int
        package var serverAcknowledged: Int
        package var connecting: Duration
        package var delivering: Duration

        package var isExact: Bool {
            exactHosts == hosts && duplicates == 0 && missing == 0 && read == hosts * pushes
                && serverDeliveries == hosts * pushes && serverAcknowledged == hosts * pushes
        }
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    package func run() async throws -> Report {
        let tag = String(UInt32.random(in: .min ... .max), radix: 16)
        let tally = Tally(hosts: hosts)
        let path = BenchClient.connectPath(client: "fleet-sim", org: org, token: token)
        let control = DevServerClient(server)
        let clock = ContinuousClock()
        let started = clock.now
        var channels: [any Channel] = []
        defer { for channel in channels { channel.close(promise: nil) } }
        for index in 0..<hosts {
            let client = BenchClient(
                server: server, path: path, hostIdentity: "\(tag)-\(index)",
                onPush: { tally.record(String(buffer: $0), host: index) })
            channels.append(try await client.connect())
        }
        let ours: @Sendable (DevServerStats) -> [DevServerHostStats] = { stats in
            (stats.hosts ?? []).filter { $0.org == org && $0.host.hasPrefix(tag + "-") }
        }
        try await wait(for: "\(hosts) hosts to connect", control: control) { ours($0).count { $0.connected } == hosts }
        let connected = clock.now
        for number in 0..<pushes {
            _ = try await control.push(#"{"id":"\#(tag)-push-\#(number)","title":"Fleet push \#(number)"}"#, org: org)
        }
        let stats = try await wait(for: "every host to acknowledge \(pushes) pushes", control: control) { stats in
            ours(stats).allSatisfy { $0.acked >= pushes && $0.unacked == 0 && $0.queued == 0 }
        }
        let delivered = clock.now
        let expected = (0..<pushes).map { #""id":"\#(tag)-push-\#($0)""# }
        let counts = tally.counts
        var report = Report(
            hosts: hosts, pushes: pushes, exactHosts: 0, duplicates: 0, missing: 0,
            read: counts.reduce(0) { $0 + $1.values.reduce(0, +) },
            serverDeliveries: ours(stats).reduce(0) { $0 + $1.deliveries },
            serverAcknowledged: ours(stats).reduce(0) { $0 + $1.acked },
            connecting: connected - started, delivering: delivered - connected)
        for host in counts {
            let seen = expected.map { id in host.filter { $0.key.contains(id) }.values.reduce(0, +) }
            report.duplicates += seen.reduce(0) { $0 + max(0, $1 - 1) }
            report.missing += seen.count { $0 == 0 }
            if seen.allSatisfy({ $0 == 1 }) && host.values.reduce(0, +) == pushes { report.exactHosts += 1 }
        }
        return report
    }

    private func wait(
        for what: String, control: DevServerClient, _ condition: @Sendable (DevServerStats) -> Bool
    ) async throws -> DevServerStats {
        let deadline = ContinuousClock.now + timeout
        while true {
            let stats = try await control.stats()
            if condition(stats) { return stats }
            guard ContinuousClock.now < deadline else { throw Failed(description: "timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// What each host read: the payloads, counted.
private final class Tally: Sendable {
    private let state: Mutex<[[String: Int]]>

    init(hosts: Int) {
        state = Mutex(Array(repeating: [:], count: hosts))
    }

    func record(_ payload: String, host: Int) {
        state.withLock { $0[host][payload, default: 0] += 1 }
    }

    var counts: [[String: Int]] { state.withLock { $0 } }
}
