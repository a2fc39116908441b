// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import Testing

extension Integration {
    @Suite("intrapush exit statuses and terminal output")
    struct CLIExitTests {
        /// A database made by the production migrations, with one notification, no daemon.
        private func database(in directory: TemporaryDirectory) throws -> String {
            let path = directory.file("cli.sqlite3")
            let store = try NotificationStore(path: path)
            _ = try store.store([Push(payload: .text(#"{"title":"T\u001b[31m","body":"b"}"#), messageID: "x-1",
                                      title: "T\u{1B}[31mred", body: "b", receivedAt: WallClock.nowMilliseconds())], liveState: nil)
            return path
        }

        /// Each failure: its status and one sentence on stderr.
        @Test("66 no database, 1 not found, 2 usage, 65 newer schema, 78 bad configuration")
        func exitStatuses() async throws {
            let directory = try TemporaryDirectory("it")
            let path = try database(in: directory)
            func run(_ arguments: [String]) async throws -> CLIResult {
                try await runCLI(arguments, directory: directory)
            }
            let missing = try await run(["list", "--database", directory.file("nope.sqlite3")])
            #expect(missing.status == 66 && missing.stderr.hasPrefix("intrapush: no database at "))
            #expect(missing.stderr.split(separator: "\n").count == 1)
            let status = try await run(["status", "--database", directory.file("nope.sqlite3")])
            #expect(status.status == 66)
            let notFound = try await run(["show", "99", "--database", path])
            #expect(notFound.status == 1 && notFound.stderr == "intrapush: no notification with id 99 in \(path)\n")
            #expect(try await run(["mark-read", "1", "99", "--database", path]).status == 1)
            #expect(try await run(["list", "--since", "yesterday", "--database", path]).status == 2)
            #expect(try await run(["mark-read", "--database", path]).status == 2)
            #expect(try await run(["frobnicate"]).status == 2)
            let badConfig = try directory.write("bad.conf", "databse = \"/x\"\n")
            let configuration = try await run(["count", "--config", badConfig])
            #expect(configuration.status == 78 && configuration.stderr.contains("databse"))

            let newer = directory.file("newer.sqlite3")
            _ = try NotificationStore(path: newer)
            try SQLiteConnection(path: newer).setUserVersion(Schema.latestVersion + 1)
            let refused = try await run(["count", "--database", newer])
            #expect(refused.status == 65 && refused.stderr.contains("newer than this intrapush understands"))
            #expect(try await run(["count", "--database", path]).stdout == "1\n")
        }

        /// On a terminal the table is coloured, never with NO_COLOR, and a title's escape
        /// sequence is shown, not obeyed.
        @Test("colour on a terminal only, never with NO_COLOR; escapes in titles neutralised")
        func colourOnTerminals() async throws {
            let directory = try TemporaryDirectory("it")
            let path = try database(in: directory)
            // script(1) gives the command a pseudo-terminal.
            let command = "\(Binaries.path("intrapush")) list --database \(path)"
            let coloured = try await runCLI(
                [], environment: [:], directory: directory, executable: "/usr/bin/script", ["-qec", command, "/dev/null"])
            #expect(coloured.stdout.contains("\u{1B}[1m"), "bold unread row on a terminal")
            #expect(coloured.stdout.contains("[31mred") && !coloured.stdout.contains("\u{1B}[31m"), "the title's escape is not sent")
            let plain = try await runCLI(
                [], environment: ["NO_COLOR": "1"], directory: directory, executable: "/usr/bin/script", ["-qec", command, "/dev/null"])
            #expect(!plain.stdout.contains("\u{1B}"), "NO_COLOR: \(plain.stdout.debugDescription)")
            #expect(plain.stdout.contains("[31mred"))
        }
    }
}

extension Integration.CLIExitTests {
    /// export: every row oldest first; JSON Lines with the contract's keys, CSV with a header and
    /// RFC 4180 quoting.
    @Test("export as JSON Lines and as CSV")
    func export() async throws {
        let directory = try TemporaryDirectory("it")
        let path = directory.file("export.sqlite3")
        let store = try NotificationStore(path: path)
        _ = try store.store([
            Push(payload: .text("first, \"quoted\"\nline"), messageID: nil, title: nil, body: nil, receivedAt: 1_763_773_323_456),
            Push(payload: .text(#"{"title":"二"}"#), messageID: "e-2", title: "二", body: nil, receivedAt: 1_763_773_324_000),
        ], liveState: nil)
        let json = try await runCLI(["export", "--format", "json", "--database", path], directory: directory)
        #expect(json.status == 0)
        #expect(json.stdout == #"""
            {"id":1,"message_id":null,"received_at":"2025-11-22T01:02:03.456Z","title":null,"body":null,"payload":"first, \"quoted\"\nline","read_at":null,"priority":null,"link":null,"recipients":null}
            {"id":2,"message_id":"e-2","received_at":"2025-11-22T01:02:04.000Z","title":"二","body":null,"payload":"{\"title\":\"二\"}","read_at":null,"priority":null,"link":null,"recipients":null}

            """#)
        let csv = try await runCLI(["export", "--format", "csv", "--database", path], directory: directory)
        #expect(csv.stdout == "id,message_id,received_at,title,body,payload,read_at,priority,link,recipients\r\n"
            + "1,,2025-11-22T01:02:03.456Z,,,\"first, \"\"quoted\"\"\nline\",,,,\r\n"
            + "2,e-2,2025-11-22T01:02:04.000Z,二,,\"{\"\"title\"\":\"\"二\"\"}\",,,,\r\n")
        let since = try await runCLI(["export", "--format", "json", "--since", "2025-11-22T01:02:04Z", "--database", path], directory: directory)
        #expect(since.lines.count == 1)
        #expect(try await runCLI(["export", "--format", "xml", "--database", path], directory: directory).status == 2)
        // --database before the command works as after it.
        let leading = try await runCLI(["--database", path, "export", "--format", "json"], directory: directory)
        #expect(leading.status == 0)
        #expect(leading.stdout == json.stdout)
    }
}

extension Integration.CLIExitTests {
    /// The notification model: `--priority` selects at least that level (no priority is normal),
    /// `--mine` what is addressed to this user, one of their groups or no one; `list` marks
    /// high and urgent, `show` names the priority, link and recipients.
    @Test("list --priority, --mine, the marks and show")
    func priorityAndRecipients() async throws {
        let directory = try TemporaryDirectory("it")
        let path = directory.file("model.sqlite3")
        let store = try NotificationStore(path: path)
        func push(_ id: String, _ priority: NotificationPriority?, to recipients: String? = nil) -> Push {
            var push = Push(payload: .text("{}"), messageID: id, title: "t-\(id)", body: nil, receivedAt: 1_763_773_323_456)
            push.priority = priority
            push.recipients = recipients
            push.link = id == "urgent" ? "https://intra.example/x" : nil
            return push
        }
        let me = try #require(RecipientFilter.currentUser()?.names)
        _ = try store.store([
            push("none", nil), push("low", .low), push("high", .high, to: "\(me[0])\nsomeone-else"),
            push("urgent", .urgent, to: "no-such-user-or-group"), push("group", nil, to: me.last!),
        ], liveState: nil)
        let high = try await runCLI(["list", "--priority", "high", "--json", "--database", path], directory: directory)
        #expect(high.lines.map { $0.contains(#""message_id":"urgent""#) || $0.contains(#""message_id":"high""#) } == [true, true])
        let normal = try await runCLI(["count", "--priority", "normal", "--database", path], directory: directory)
        #expect(normal.stdout == "4\n")
        let mine = try await runCLI(["list", "--mine", "--json", "--database", path], directory: directory)
        #expect(!mine.stdout.contains(#""message_id":"urgent""#))
        #expect(mine.lines.count == 4)
        let bad = try await runCLI(["list", "--priority", "loud", "--database", path], directory: directory)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--priority takes min, low, normal, high or urgent"))
        let table = try await runCLI(["list", "--database", path], directory: directory)
        #expect(table.lines.contains { $0.hasPrefix("*!!") && $0.contains("t-urgent") })
        #expect(table.lines.contains { $0.hasPrefix("*!") && !$0.hasPrefix("*!!") && $0.contains("t-high") })
        let show = try await runCLI(["show", "4", "--database", path], directory: directory)
        #expect(show.stdout.contains("Priority:    urgent (5)"))
        #expect(show.stdout.contains("Link:        https://intra.example/x"))
        #expect(show.stdout.contains("To:          no-such-user-or-group"))
    }
}
