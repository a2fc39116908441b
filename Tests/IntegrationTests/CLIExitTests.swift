import Foundation
import IntrapushCore
import Testing

extension Integration {
    @Suite("intrapush exit statuses and terminal output")
    struct CLIExitTests {
        /// A database made by the production migrations, with one notification, no daemon.
        private func database(in directory: TestDirectory) throws -> String {
            let path = directory.file("cli.sqlite3")
            let store = try NotificationStore(path: path)
            _ = try store.store([Push(payload: .text(#"{"title":"T\u001b[31m","body":"b"}"#), messageID: "x-1",
                                      title: "T\u{1B}[31mred", body: "b", receivedAt: WallClock.nowMilliseconds())], liveState: nil)
            return path
        }

        /// Each failure: its status and one sentence on stderr.
        @Test("66 no database, 1 not found, 2 usage, 65 newer schema, 78 bad configuration")
        func exitStatuses() async throws {
            let directory = try TestDirectory()
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
            let directory = try TestDirectory()
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
