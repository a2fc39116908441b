// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushDevServer

/// A running `intrapush-devserver` on an ephemeral loopback port.
final class DevServerHandle: @unchecked Sendable {
    let process: ManagedProcess
    let port: Int
    let client: DevServerClient
    let token: String

    /// Starts the server; `port` 0 picks a free one, a given port restarts on the same one.
    init(directory: TemporaryDirectory, token: String, port: Int = 0, verifyDatabase: String? = nil, extraArguments: [String] = [], name: String = "devserver") async throws {
        var arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--token", token] + extraArguments
        if let verifyDatabase { arguments += ["--verify-database", verifyDatabase] }
        let process = try ManagedProcess(Binaries.path("intrapush-devserver"), arguments, directory: directory, name: name)
        var bound: Int?
        try await eventually(timeout: .seconds(10), "the devserver to listen") {
            bound = process.stdout.split(separator: "\n").first.flatMap { line in
                line.hasPrefix("listening on ") ? line.split(separator: ":").last.flatMap { Int($0) } : nil
            }
            return bound != nil
        }
        self.process = process
        self.port = bound!
        self.token = token
        self.client = DevServerClient(host: "127.0.0.1", port: bound!)
    }

    func stats() async throws -> DevServerStats {
        try await client.stats()
    }

    /// Waits until the server's statistics satisfy `condition`, and returns them.
    @discardableResult
    func waitFor(_ what: String, timeout: Duration = .seconds(20), interval: Duration = .milliseconds(20), _ condition: @escaping (DevServerStats) -> Bool) async throws -> DevServerStats {
        var last: DevServerStats?
        do {
            try await eventually(timeout: timeout, interval: interval, what) {
                last = try await client.stats()
                return condition(last!)
            }
        } catch {
            throw WaitTimedOut(what: "\(what); last stats: \(String(describing: last))", timeout: timeout)
        }
        return last!
    }

    func stop() async throws {
        process.signal(SIGTERM)
        _ = try await process.waitForExit()
    }
}
