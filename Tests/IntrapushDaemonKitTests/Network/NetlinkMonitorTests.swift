// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("NetlinkMonitor on a real kernel")
struct NetlinkMonitorTests {
    /// Collects what the monitor reports until a wanted change has been seen, or gives up.
    final class Changes: Sendable {
        let stream: AsyncStream<NetworkChange>
        let continuation: AsyncStream<NetworkChange>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream(of: NetworkChange.self)
        }

        /// Waits (at most 5 s) until the changes reported since the last call contain `wanted`.
        func awaitChange(containing wanted: NetworkChange) async -> NetworkChange {
            let stream = self.stream
            return await withTaskGroup(of: NetworkChange?.self) { group in
                group.addTask {
                    var seen: NetworkChange = []
                    for await change in stream {
                        seen.formUnion(change)
                        if seen.isSuperset(of: wanted) { return seen }
                    }
                    return seen
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(5))
                    return nil
                }
                let first = await group.next()!
                group.cancelAll()
                return first ?? []
            }
        }
    }

    /// Links coming up and losing carrier, an address and its subnet route, all reported by
    /// the kernel to a monitor whose socket lives in a scratch namespace.
    @Test("reports link, address and route changes made with ip(8)",
          .enabled(if: NetworkNamespace.isAvailable, "needs root and `ip netns` to create a network namespace"))
    func realChanges() async throws {
        let namespace = try NetworkNamespace()
        let changes = Changes()
        let continuation = changes.continuation
        let monitor = try namespace.entered { try NetlinkMonitor { continuation.yield($0) } }
        monitor.start()
        defer { monitor.stop() }

        try namespace.ip("link", "add", "va", "type", "veth", "peer", "name", "vb")
        try namespace.ip("link", "set", "va", "up")
        try namespace.ip("link", "set", "vb", "up")
        #expect(await changes.awaitChange(containing: .linkUp).contains(.linkUp))
        try namespace.ip("addr", "add", "10.9.0.1/24", "dev", "va")
        #expect(await changes.awaitChange(containing: [.addressAdded, .routeAdded]).isSuperset(of: [.addressAdded, .routeAdded]))
        try namespace.ip("link", "set", "vb", "down")
        #expect(await changes.awaitChange(containing: .linkDown).contains(.linkDown))
        try namespace.ip("link", "set", "va", "down")
        #expect(await changes.awaitChange(containing: .routeRemoved).contains(.routeRemoved))
    }

    /// stop() wakes the reading thread and joins it, so one that never ended would hang here: the
    /// time limit turns that into a failure. The thread holds the monitor while it runs: once
    /// stop() returned, dropping the monitor frees it. A monitor can be dropped without being
    /// started.
    @Test("start and stop are idempotent, and stop returns once the thread ended", .timeLimit(.minutes(1)))
    func stopping() throws {
        weak var released: NetlinkMonitor?
        do {
            let monitor = try NetlinkMonitor { _ in }
            released = monitor
            monitor.start()
            monitor.start()
            monitor.stop()
            monitor.stop()
            monitor.start()  // stopped for good: no thread again
        }
        #expect(released == nil, "the reading thread ended and let go of the monitor")
        weak var neverStarted: NetlinkMonitor?
        do { neverStarted = try NetlinkMonitor { _ in } }
        #expect(neverStarted == nil)
    }
}
