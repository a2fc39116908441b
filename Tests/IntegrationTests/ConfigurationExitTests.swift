// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
@testable import IntrapushInterface
import IntrapushConfiguration
import Testing

extension Integration {
    @Suite("Bad input at start: exit statuses and secrecy")
    struct ConfigurationExitTests {
        static let badConfigurations: [(name: String, toml: String, key: String)] = [
            ("unknown key", "host = \"h:1\"\norg = \"o\"\ntoken = \"t\"\nheartbeat_intervl = 10\n", "heartbeat_intervl"),
            ("bad duration", "host = \"h:1\"\norg = \"o\"\ntoken = \"t\"\nheartbeat_interval = \"10 parsecs\"\n", "heartbeat_interval"),
            ("missing host", "org = \"o\"\ntoken = \"t\"\n", "host"),
            ("wrong type", "host = \"h:1\"\norg = \"o\"\ntoken = \"t\"\ntls = \"maybe\"\n", "tls"),
            ("syntax error", "host = \"h:1\norg = \"o\"\n", "intrapushd.conf:1"),
            ("empty token file", "host = \"h:1\"\norg = \"o\"\ntoken_file = \"EMPTY\"\n", "token_file"),
            ("shell syntax in the hook", "host = \"h:1\"\norg = \"o\"\ntoken = \"t\"\non_notification = \"notify-send $INTRAPUSH_TITLE\"\n",
             "intrapushd.conf:4: on_notification: '$INTRAPUSH_TITLE' would be expanded by a shell"),
        ]

        @Test("a bad configuration exits 78 before opening anything, naming the key", arguments: 0..<badConfigurations.count)
        func badConfigurationExits78(index: Int) async throws {
            let (_, toml, key) = Self.badConfigurations[index]
            let directory = try TemporaryDirectory("it")
            let empty = try directory.write("empty-token", "")
            let database = directory.file("never-created.sqlite3")
            let config = try directory.write("intrapushd.conf", toml.replacing("EMPTY", with: empty) + "database = \"\(database)\"\n")
            let daemon = try ManagedProcess(Binaries.path("intrapushd"), ["--config", config], directory: directory, name: "intrapushd")
            #expect(try await daemon.waitForExit() == 78)
            #expect(daemon.stderr.contains(key), "stderr: \(daemon.stderr)")
            #expect(!FileManager.default.fileExists(atPath: database), "nothing opened before the configuration is valid")
        }

        @Test("a database whose directory cannot be created exits 74, saying why")
        func unopenableDatabaseExits74() async throws {
            let directory = try TemporaryDirectory("it")
            let file = try directory.write("a-file", "")
            let config = try directory.write(
                "intrapushd.conf",
                "host = \"127.0.0.1:9\"\norg = \"o\"\ntoken = \"t\"\ndatabase = \"\(file)/dir/n.sqlite3\"\n"
            )
            let daemon = try ManagedProcess(Binaries.path("intrapushd"), ["--config", config], directory: directory, name: "intrapushd")
            #expect(try await daemon.waitForExit() == 74)
            #expect(daemon.stderr.contains("<3>cannot create the database's directory: cannot create \(file)/dir: Not a directory"),
                    "stderr: \(daemon.stderr)")
        }

        @Test("outside systemd the daemon creates its database's missing directories, mode 0751")
        func createsDatabaseDirectory() async throws {
            let directory = try TemporaryDirectory("it")
            let database = "\(directory.path)/state/intrapush/n.sqlite3"
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            let daemon = try DaemonHandle(directory: directory, serverPort: server.port, token: token, extra: ["database": "\"\(database)\""])
            try await server.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            #expect(FileManager.default.fileExists(atPath: database))
            for created in ["\(directory.path)/state", "\(directory.path)/state/intrapush"] {
                let mode = try FileManager.default.attributesOfItem(atPath: created)[.posixPermissions] as? Int
                #expect(mode == 0o751, "\(created)")
            }
            _ = daemon
        }

        @Test("--check-config prints the effective configuration with the token as ***")
        func checkConfig() async throws {
            let directory = try TemporaryDirectory("it")
            let secret = "s3cr3t-\(Int.random(in: 1000...9999))"
            let tokenFile = try directory.write("token", secret + "  \n")
            let config = try directory.write("intrapushd.conf", "host = \"push.corp:8080\"\norg = \"Org 1/Ü\"\ntoken_file = \"\(tokenFile)\"\n")
            let check = try ManagedProcess(
                Binaries.path("intrapushd"), ["--check-config", "--config", config],
                environment: ["INTRAPUSH_HEARTBEAT_INTERVAL": "250ms"], directory: directory, name: "check"
            )
            #expect(try await check.waitForExit() == 0)
            #expect(check.stdout.contains("token = \"***\""))
            #expect(check.stdout.contains("heartbeat_interval = \"250ms\""), "the environment overrides the file")
            #expect(check.stdout.contains("dead_peer_timeout = \"750ms\""))
            #expect(!check.stdout.contains(secret) && !check.stderr.contains(secret))
        }

        @Test("the unit's reload check: --quiet prints nothing when valid; under systemd problems are errors")
        func quietReloadCheck() async throws {
            let directory = try TemporaryDirectory("it")
            let valid = try directory.write("valid.conf", "host = \"127.0.0.1:1\"\norg = \"o\"\ntoken = \"t\"\n")
            let quiet = try ManagedProcess(
                Binaries.path("intrapushd"), ["--check-config", "--quiet", "--config", valid], directory: directory, name: "quiet")
            #expect(try await quiet.waitForExit() == 0)
            #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)\(quiet.stderr)")

            let invalid = try directory.write("invalid.conf", "host = \"h:1\"\norg = \"o\"\ntoken = \"t\"\nheartbeat_intervall = 5\n")
            // systemd sets JOURNAL_STREAM for a command whose stderr is the journal.
            let underSystemd = try ManagedProcess(
                Binaries.path("intrapushd"), ["--check-config", "--quiet", "--config", invalid],
                environment: ["JOURNAL_STREAM": "8:12345"], directory: directory, name: "journal")
            #expect(try await underSystemd.waitForExit() == 78)
            #expect(underSystemd.stderr.hasPrefix("<3>") && underSystemd.stderr.contains("heartbeat_intervall"), "\(underSystemd.stderr)")

            let person = try ManagedProcess(
                Binaries.path("intrapushd"), ["--check-config", "--config", invalid], directory: directory, name: "person")
            #expect(try await person.waitForExit() == 78)
            #expect(!person.stderr.contains("<3>"), "a person reads no priority prefixes: \(person.stderr)")

            let misused = try ManagedProcess(Binaries.path("intrapushd"), ["--quiet"], directory: directory, name: "misused")
            #expect(try await misused.waitForExit() == 64)
        }

        @Test("the token reaches no log line, status line or argument, even at debug level and when rejected")
        func tokenNeverLogged() async throws {
            let directory = try TemporaryDirectory("it")
            let token = "Secret/\(Int.random(in: 100_000...999_999))"
            let encoded = token.replacing("/", with: "%2F")
            let server = try await DevServerHandle(directory: directory, token: token)
            let notify = try NotifySocket(directory: directory)
            let daemon = try DaemonHandle(directory: directory, serverPort: server.port, token: token, environment: ["NOTIFY_SOCKET": notify.path])
            try await server.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            _ = try await server.client.control("/control/reject?status=401")
            _ = try await server.client.control("/control/drop")
            try await server.waitFor("a rejected attempt") { $0.upgradesRejected >= 1 }
            let commandLine = try String(contentsOfFile: "/proc/\(daemon.process.pid)/cmdline", encoding: .utf8)
            daemon.process.signal(SIGTERM)
            _ = try await daemon.process.waitForExit()
            let everything = daemon.log + notify.assignments.joined(separator: "\n") + commandLine
                + (try DaemonDatabase(path: daemon.databasePath).strings("SELECT server || ' ' || coalesce(last_error, '') FROM daemon_state").compactMap { $0 }.joined())
            #expect(daemon.log.contains("<7>"), "debug logging was on")
            #expect(daemon.log.contains("/connect/linux/acme/***"))
            for secret in [token, encoded, String(token.dropFirst(7))] {
                #expect(!everything.contains(secret), "the token leaked")
            }
        }
    }
}
