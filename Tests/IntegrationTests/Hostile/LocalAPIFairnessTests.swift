// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// One person's connections keep out that person only (docs/operating.md, "Limits"): a user holding a
/// thousand idle connections gets `Busy` for their next, from the interface they called, while
/// another user and root are answered as ever.
extension Integration {
    @Suite("Local API: fair between people")
    struct LocalAPIFairnessTests {
        /// `command` as the unprivileged uid `uid` (no groups), with setpriv(1).
        func asUser(_ uid: Int, _ command: [String]) -> [String] {
            ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"] + command
        }

        @Test("a user holding 1,000 connections is told Busy for the next; another user's count and root's status go on")
        func oneUserCannotLockOthersOut() async throws {
            guard getuid() == 0 else { return }  // setpriv needs root; CI runs the tests as root
            let (directory, _, server, daemon) = try await startConnected(extra: ["readers": "\"everyone\""])
            defer { withExtendedLifetime(server) {} }
            // Others may reach the socket through the test's directory (mode 0700 from mkdtemp).
            chmod(directory.path, 0o711)
            let socket = daemon.databasePath + ".sock"
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            holder.arguments = Array(asUser(65534, ["/usr/bin/python3", "Tests/support/local_api_holder.py", socket, "1000"]).dropFirst())
            let input = Pipe()
            let output = Pipe()
            holder.standardInput = input
            holder.standardOutput = output
            try holder.run()
            defer { holder.killIfRunning() }
            let lines = LineReader(output.fileHandleForReading)
            let answer = try #require(try lines.next(timeout: .seconds(60)))
            #expect(answer == "answer io.intrapush.Notifications.Busy", "the holder's next call")

            let count = try await runCLI([], directory: directory, executable: "/usr/bin/setpriv",
                Array(asUser(65533, [Binaries.path("intrapush"), "count", "--database", daemon.databasePath]).dropFirst()))
            #expect(count.status == 0, "another user's count: \(count.stderr)")
            #expect(count.stdout == "0\n")
            let status = try await runCLI(["status", "--database", daemon.databasePath], directory: directory)
            #expect(status.status == 0 && status.stdout.contains("is connected"), "root's status: \(status.stdout)\(status.stderr)")

            // The daemon keeps no more of the holder's connections than one person may have.
            try await eventually("the holder's refused connections closed") {
                input.fileHandleForWriting.write(Data("count\n".utf8))
                guard let line = try lines.next(timeout: .seconds(5)), let open = Int(line.dropFirst(5)) else { return false }
                return open <= 64  // a person's share (ConnectionPlaces)
            }
            try input.fileHandleForWriting.close()
        }
    }
}
