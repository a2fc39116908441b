// SPDX-License-Identifier: Apache-2.0

import CLinux
import Foundation
import Synchronization

/// A scratch network namespace (`ip netns add`), deleted on release; needs root.
///
/// Tests run `ip` inside it, and enter it on the current thread (`setns`) just long enough to
/// open a socket there: a socket stays in the namespace it was made in.
final class NetworkNamespace {
    let name: String
    private static let counter = Atomic(0)

    /// Whether namespaces can be made here (root, `ip` present); probed once.
    static let isAvailable: Bool = (try? NetworkNamespace()) != nil

    init() throws {
        name = "intrapush-test-\(getpid())-\(Self.counter.add(1, ordering: .relaxed).newValue)"
        try Self.run(["netns", "add", name])
    }

    deinit {
        try? Self.run(["netns", "delete", name])
    }

    /// Runs `ip ARGUMENTS` inside the namespace.
    func ip(_ arguments: String...) throws {
        try Self.run(["netns", "exec", name, "ip"] + arguments)
    }

    /// Runs `body` on this thread inside the namespace, then comes back. `body` must not suspend.
    func entered<Result>(_ body: () throws -> Result) throws -> Result {
        let original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        let target = open("/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
        defer { close(original); close(target) }
        guard original >= 0, target >= 0, setns(target, 0x4000_0000) == 0 else {  // CLONE_NEWNET
            throw NamespaceError(description: "cannot enter \(name): \(String(cString: strerror(errno)))")
        }
        defer { precondition(setns(original, 0x4000_0000) == 0, "cannot leave the test namespace") }
        return try body()
    }

    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw NamespaceError(description: "ip \(arguments.joined(separator: " ")): \(message)")
        }
    }

    struct NamespaceError: Error, CustomStringConvertible {
        let description: String
    }
}
