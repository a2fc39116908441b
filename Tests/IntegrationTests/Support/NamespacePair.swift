// SPDX-License-Identifier: Apache-2.0

import CLinux
import Foundation
@testable import IntrapushDaemonKit
import IntrapushDevServer

/// Two scratch network namespaces joined by a veth pair, for the network-awareness test: the
/// server's (`vs`, 10.77.0.1/24, always up) and the daemon's (`vc`, down and without an address
/// until the test brings it up and configures it, as a DHCP client would). Processes start inside
/// one with `ip netns exec`, which execs them in place: the pid is the program's own. Needs root
/// and ip(8). `delete()` removes both (the veth pair goes with them); call it from a `defer`.
final class NamespacePair: @unchecked Sendable {
    static let ipPath = "/usr/sbin/ip"
    static let serverAddress = "10.77.0.1"
    let server: String
    let client: String
    private var isDeleted = false

    /// Why namespaces cannot be made here, or nil when they can; probed once.
    static let unavailableReason: String? = {
        guard getuid() == 0 else { return "not root" }
        guard FileManager.default.isExecutableFile(atPath: ipPath) else { return "no \(ipPath) (iproute2)" }
        let probe = "intrapush-probe-\(getpid())"
        do {
            try ip("netns", "add", probe)
            try ip("netns", "delete", probe)
        } catch {
            return "\(error)"
        }
        return nil
    }()

    init() throws {
        let prefix = "intrapush-it-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        server = prefix + "-s"
        client = prefix + "-c"
        do {
            try Self.ip("netns", "add", server)
            try Self.ip("netns", "add", client)
            // Distinct interface indexes: the kernel then applies the carrier changes of the
            // pair at once (as for any stacked device); with equal ones (2 and 2, the first link of
            // each namespace) it batches them, at most once a second, and the server's end could
            // stay unable to send for up to a second after the daemon's end came up.
            try Self.ip("-n", client, "link", "add", "vc", "index", "7", "type", "veth",
                        "peer", "name", "vs", "netns", server, "index", "8")
            try Self.ip("-n", server, "addr", "add", "\(Self.serverAddress)/24", "dev", "vs")
            for (namespace, link) in [(server, "lo"), (server, "vs"), (client, "lo")] {
                try Self.ip("-n", namespace, "link", "set", link, "up")
            }
        } catch {
            delete()
            throw error
        }
    }

    deinit {
        delete()
    }

    /// Deletes both namespaces; processes still inside keep theirs until they exit.
    func delete() {
        guard !isDeleted else { return }
        isDeleted = true
        try? Self.ip("netns", "delete", client)
        try? Self.ip("netns", "delete", server)
    }

    /// Sets the daemon's end of the link up or down; down also removes its address (and with it
    /// the route to the server), as a DHCP client does when the carrier goes.
    func setClientLink(up: Bool) throws {
        try Self.ip("-n", client, "link", "set", "vc", up ? "up" : "down")
        if !up { try Self.ip("-n", client, "addr", "flush", "dev", "vc") }
    }

    /// Configures the daemon's address: its subnet route, the route to the server, appears.
    func addClientAddress() throws {
        try Self.ip("-n", client, "addr", "add", "10.77.0.2/24", "dev", "vc")
    }

    /// `ip netns exec NAMESPACE EXECUTABLE ARGUMENTS…` as the arguments of `ip`.
    func execArguments(in namespace: String, _ executable: String, _ arguments: [String]) -> [String] {
        ["netns", "exec", namespace, executable] + arguments
    }

    /// The devserver's `/stats`, asked from inside the server's namespace.
    func stats(port: Int) throws -> DevServerStats {
        let output = try Self.run(execArguments(in: server, Binaries.path("intrapush-devserver"), [
            "stats", "--server", "\(Self.serverAddress):\(port)",
        ]))
        return try JSONDecoder().decode(DevServerStats.self, from: Data(output.utf8))
    }

    static func ip(_ arguments: String...) throws {
        _ = try run(arguments)
    }

    /// Runs ip(8) and returns its standard output; throws with its standard error on failure.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ipPath)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw NamespaceError(description: "ip \(arguments.joined(separator: " ")): \(message)")
        }
        return text
    }

    struct NamespaceError: Error, CustomStringConvertible {
        let description: String
    }
}

/// Now on CLOCK_MONOTONIC in microseconds, the clock of the devserver's connection times.
func monotonicMicroseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
}

/// When the kernel last reported a link of a namespace usable (up with carrier), on
/// CLOCK_MONOTONIC: the instant from which the daemon can reach anything. A link's carrier
/// follows `ip link set up` by up to a second (the kernel's link watch), which is not the daemon's
/// to shorten; the daemon's reaction is measured from here.
final class LinkUpWatch: @unchecked Sendable {
    static let newNetworkNamespace: Int32 = 0x4000_0000  // CLONE_NEWNET
    private let lock = NSLock()
    private var lastUp: Int?
    private var monitor: NetlinkMonitor?

    /// Watches `namespace`: the monitor's socket is made on this thread inside it, then the
    /// thread comes back (a socket stays in the namespace it was made in).
    init(namespace: String) throws {
        let original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        let target = open("/run/netns/\(namespace)", O_RDONLY | O_CLOEXEC)
        defer { close(original); close(target) }
        guard original >= 0, target >= 0, setns(target, Self.newNetworkNamespace) == 0 else {
            throw NamespacePair.NamespaceError(description: "cannot enter \(namespace): \(String(cString: strerror(errno)))")
        }
        let made = Result { try NetlinkMonitor { [weak self] change in self?.changed(change) } }
        precondition(setns(original, Self.newNetworkNamespace) == 0, "cannot leave the namespace \(namespace)")
        monitor = try made.get()
        monitor?.start()
    }

    deinit {
        monitor?.stop()
    }

    private func changed(_ change: NetworkChange) {
        guard change.contains(.linkUp) else { return }
        let now = monotonicMicroseconds()
        lock.withLock { lastUp = now }
    }

    /// The latest link-up reported at or after `instant` (CLOCK_MONOTONIC, µs), if any yet.
    func linkUp(since instant: Int) -> Int? {
        lock.withLock { lastUp.flatMap { $0 >= instant ? $0 : nil } }
    }
}
