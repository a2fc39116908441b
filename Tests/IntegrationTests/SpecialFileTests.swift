// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

extension Integration {
    /// A named pipe put where a file of the configuration belongs would block a plain open()
    /// until someone writes to it: at start the daemon would never start, at a reload it would
    /// stop storing pushes. Every such file is opened without blocking and refused unless regular.
    @Suite("Files that are not regular files: refused at once, never waited on")
    struct SpecialFileTests {
        enum Kind: String, CaseIterable, Sendable {
            case fifo, device, socket

            /// What the refusal says about it.
            var reason: String {
                switch self {
                case .fifo: "is a named pipe (FIFO), not a regular file"
                case .device: "is a device, not a regular file"
                case .socket: "is a socket, not a regular file"
                }
            }
        }

        enum Role: String, CaseIterable, Sendable {
            case configuration, token, caFile
        }

        /// A file of `kind` in `directory`; its path, and a descriptor to close afterwards.
        static func make(_ kind: Kind, in directory: TemporaryDirectory) throws -> (path: String, descriptor: Int32) {
            switch kind {
            case .fifo:
                let path = directory.file("pipe")
                try #require(mkfifo(path, 0o600) == 0)
                return (path, -1)
            case .device:
                return ("/dev/zero", -1)
            case .socket:
                let path = directory.file("socket")
                let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8 + [0]) }
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
                try #require(bound == 0)
                return (path, descriptor)
            }
        }

        /// The configuration with `special` in `role` (the configuration file itself aside).
        static func configuration(_ role: Role, special: String, serverPort: Int, token: String, database: String) -> String {
            var text = "host = \"127.0.0.1:\(serverPort)\"\norg = \"org\"\ndatabase = \"\(database)\"\nlog_level = \"info\"\n"
            text += role == .token ? "token_file = \"\(special)\"\n" : "token = \"\(token)\"\n"
            if role == .caFile { text += "ca_file = \"\(special)\"\n" }
            return text
        }

        @Test("at start, a FIFO, a device or a socket as the configuration, the token or the CA file exits 78 at once, naming it",
              arguments: Role.allCases, Kind.allCases)
        func atStart(role: Role, kind: Kind) async throws {
            let directory = try TemporaryDirectory("it")
            let special = try Self.make(kind, in: directory)
            defer { if special.descriptor >= 0 { close(special.descriptor) } }
            let database = directory.file("never-created.sqlite3")
            let config = role == .configuration ? special.path : try directory.write(
                "intrapushd.conf", Self.configuration(role, special: special.path, serverPort: 9, token: "t", database: database))
            let daemon = try ManagedProcess(Binaries.path("intrapushd"), ["--config", config], directory: directory, name: "intrapushd")
            #expect(try await daemon.waitForExit() == 78)
            #expect(daemon.stderr.contains(special.path) && daemon.stderr.contains(kind.reason), "stderr: \(daemon.stderr)")
        }

        @Test("a reload with a FIFO as the configuration, the token or the CA file is refused; the pushes go on meanwhile",
              arguments: Role.allCases)
        func atReload(role: Role) async throws {
            let (directory, token, server, daemon) = try await startConnected()
            let pipe = try Self.make(.fifo, in: directory).path
            if role == .configuration {
                try FileManager.default.removeItem(atPath: daemon.configPath)
                try #require(rename(pipe, daemon.configPath) == 0)
            } else {
                let text = Self.configuration(role, special: pipe, serverPort: server.port, token: token, database: daemon.databasePath)
                try text.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            }
            daemon.process.signal(SIGHUP)
            try await eventually("the reload to be refused") { daemon.log.contains("reload failed") }
            #expect(daemon.log.contains(Kind.fifo.reason), "log: \(daemon.log)")
            let before = try await server.stats().acked
            _ = try await server.client.burst(count: 100, size: 300, prefix: "after-reload-")
            try await server.waitFor("the pushes after the refused reload acknowledged") { $0.acked >= before + 100 }
            #expect(try await server.stats().connectionsTotal == 1, "the old configuration kept, the connection too")
        }
    }
}
