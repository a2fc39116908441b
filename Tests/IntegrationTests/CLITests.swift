// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

extension Integration {
    @Suite("intrapush CLI against the daemon's database")
    struct CLITests {
        static let jsonKeys = #"^\{"id":\d+,"message_id":(null|".*"),"received_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","title":.*,"body":.*,"payload":".*","read_at":(null|"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"),"priority":(null|"[a-z]+"),"link":.*,"recipients":(null|\[.*\])\}$"#

        /// What the real daemon stored, read back by every read command, with the token nowhere.
        @Test("list, count, show, status and mark-read on a database the daemon filled")
        func readsWhatTheDaemonStored() async throws {
            let (directory, token, server, daemon) = try await startConnected()
            _ = try await server.client.push(#"{"id":"a-1","title":"磁盘告警","body":"disk /var 95%"}"#)
            _ = try await server.client.push(#"{"id":"a-2","title":"Deploy","body":"release 1.2 done"}"#)
            _ = try await server.client.push("plain text push")
            try await server.waitFor("three acknowledgements") { $0.acked == 3 }
            let database = ["--config", daemon.configPath]
            func run(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> CLIResult {
                let result = try await runCLI(arguments + database, environment: environment, directory: directory)
                #expect(!(result.stdout + result.stderr).contains(token), "the token never reaches CLI output")
                return result
            }

            let list = try await run(["list", "--json"])
            #expect(list.status == 0)
            #expect(list.lines.count == 3)
            #expect(list.lines.allSatisfy { $0.wholeMatch(of: try! Regex(Self.jsonKeys)) != nil }, "\(list.stdout)")
            #expect(list.lines.first?.contains(#""payload":"plain text push""#) == true, "newest first")
            #expect(list.lines.last?.contains(#""title":"磁盘告警""#) == true)

            let table = try await run(["list"])
            #expect(table.status == 0 && !table.stdout.contains("\u{1B}"), "no colour when stdout is not a terminal")
            #expect(table.lines.first?.contains("TITLE") == true && table.stdout.contains("磁盘告警"))

            #expect(try await run(["count"]).stdout == "3\n")
            #expect(try await run(["list", "--grep", "DISK"]).lines.isEmpty, "an uppercase needle is case-sensitive")
            #expect(try await run(["list", "--grep", "disk", "--json"]).lines.count == 1)
            #expect(try await run(["show", "2", "--json"]).stdout.contains(#""message_id":"a-2""#))

            let status = try await run(["status", "--json"])
            #expect(status.status == 0)
            #expect(status.stdout.contains(#""running":true"#) && status.stdout.contains(#""state":"connected""#))
            #expect(status.stdout.contains("/acme/***\""))
            #expect(try await run(["status"]).stdout.hasPrefix("intrapushd (pid \(daemon.process.pid)) is connected since"))

            let marked = try await run(["mark-read", "1", "3"])
            #expect(marked.status == 0 && marked.stdout == "marked 2 notifications read\n")
            #expect(try await run(["count", "--unread"]).stdout == "1\n")
            #expect(try await run(["list", "--unread", "--json"]).lines.first?.contains(#""id":2,"#) == true)
            _ = daemon
        }

        /// A connected daemon that has stored `push`, and `follow --json --lines 1` on its database
        /// with that first line read: the line proves follow is watching before the test goes on.
        private func followingOneStoredPush(
            _ push: String
        ) async throws -> (server: DevServerHandle, daemon: DaemonHandle, follow: FollowProcess, firstLine: String?) {
            let (directory, _, server, daemon) = try await startConnected()
            _ = try await server.client.push(push)
            try await server.waitFor("the push stored") { $0.acked == 1 }
            let follow = try FollowProcess(["--json", "--lines", "1", "--database", daemon.databasePath], directory: directory)
            // The daemon is returned to keep it running (and its directory) for the test.
            return (server, daemon, follow, try follow.nextLine())
        }

        /// follow prints a notification the daemon commits while it watches, within the wait.
        @Test("follow prints what the daemon commits while it runs")
        func followSeesNewCommits() async throws {
            let (server, daemon, follow, firstLine) = try await followingOneStoredPush(#"{"id":"f-1","title":"first"}"#)
            #expect(firstLine?.contains(#""message_id":"f-1""#) == true)
            _ = try await server.client.push(#"{"id":"f-2","title":"second"}"#)
            let line = try #require(try follow.nextLine(timeout: .seconds(5)))
            #expect(line.contains(#""message_id":"f-2""#) && line.contains(#""title":"second""#))
            follow.process.interrupt()
            #expect(try await follow.waitForExit() == 0, "SIGINT ends follow cleanly")
            _ = daemon
        }

        /// `intrapush follow | head -1`: when the reader goes away, follow ends without waiting
        /// for another notification.
        @Test("follow ends when the reader of its pipe closes it")
        func followEndsWithItsReader() async throws {
            let (_, daemon, follow, firstLine) = try await followingOneStoredPush(#"{"id":"h-1","title":"only"}"#)
            #expect(firstLine != nil)
            try follow.closeOutput()
            #expect(try await follow.waitForExit(timeout: .seconds(5)) == 0)
            _ = daemon
        }
    }
}
