// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation

/// A running `intrapushd` with its own config file and database in the test directory.
final class DaemonHandle: @unchecked Sendable {
    static let databaseName = "notifications.sqlite3"
    let process: ManagedProcess
    let configPath: String
    let databasePath: String

    /// Short intervals so tests run fast; `extra` adds or overrides TOML lines.
    static func config(serverPort: Int, token: String, database: String, extra: [String: String] = [:]) -> String {
        var keys: [String: String] = [
            "host": "\"127.0.0.1:\(serverPort)\"",
            "org": "\"acme\"",
            "token": "\"\(token)\"",
            "heartbeat_interval": "\"200ms\"",
            // Not three heartbeats: a loaded machine that holds the devserver back for 600 ms must
            // not look like a dead server. The tests of a dead peer set their own.
            "dead_peer_timeout": "\"30s\"",
            "reconnect_min": "\"100ms\"",
            "reconnect_max": "\"1s\"",
            "connect_timeout": "\"2s\"",
            "database": "\"\(database)\"",
            "log_level": "\"debug\"",
        ]
        keys.merge(extra) { $1 }
        // A test's own heartbeat keeps the timeout derived from it (it must exceed the heartbeat).
        if extra["heartbeat_interval"] != nil && extra["dead_peer_timeout"] == nil {
            keys["dead_peer_timeout"] = nil
        }
        return keys.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: "\n") + "\n"
    }

    init(directory: TemporaryDirectory, serverPort: Int, token: String, extra: [String: String] = [:], environment: [String: String] = [:], name: String = "intrapushd") throws {
        databasePath = directory.file(Self.databaseName)
        configPath = try directory.write(
            "\(name).conf", Self.config(serverPort: serverPort, token: token, database: databasePath, extra: extra)
        )
        process = try ManagedProcess(
            Binaries.path("intrapushd"), ["--config", configPath],
            environment: environment, directory: directory, name: name
        )
    }

    /// Restarts on the same config and database (after a kill).
    init(restarting previous: DaemonHandle, directory: TemporaryDirectory, environment: [String: String] = [:], name: String) throws {
        databasePath = previous.databasePath
        configPath = previous.configPath
        process = try ManagedProcess(
            Binaries.path("intrapushd"), ["--config", configPath],
            environment: environment, directory: directory, name: name
        )
    }

    var log: String { process.stderr }
}
