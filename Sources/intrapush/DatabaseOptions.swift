// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushInterface
import IntrapushQuery
import IntrapushSupport

/// Where the database is; accepted by every command.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The configuration file that names the database.",
        discussion: "Default: $INTRAPUSH_CONFIG, else /etc/intrapush/intrapush.conf.",
        valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp(
        "The database file; wins over $INTRAPUSH_DATABASE and the configuration.", valueName: "path"))
    var database: String?

    /// The database's location; configuration warnings go to stderr.
    func locate() throws(CommandFailure) -> DatabaseLocator.Location {
        let location = try DatabaseLocator(environment: ProcessEnvironment.current)
            .locate(database: database, configurationFile: config)
        for warning in location.warnings { StandardError.writeLine("intrapush: warning: \(warning)") }
        return location
    }

    /// The database itself for an administrator, else the daemon's local API (`ReadAccess`).
    func openAccess() throws(CommandFailure) -> ReadAccess {
        try ReadAccess.open(path: locate().path)
    }

    /// Opens the database read-only, or fails with exit status 66 (no database).
    func openReader() throws(CommandFailure) -> NotificationReader {
        try Self.openReader(at: locate().path)
    }

    static func openReader(at path: String) throws(CommandFailure) -> NotificationReader {
        try DatabaseLocator.requireExisting(path)
        do {
            return try NotificationReader(path: path)
        } catch {
            throw CommandFailure.database(error, path: path)
        }
    }
}

/// Runs a database query, turning what SQLite throws into the CLI's sentence and exit status.
func querying<Result>(_ reader: NotificationReader, _ body: () throws -> Result) throws(CommandFailure) -> Result {
    do {
        return try body()
    } catch {
        throw CommandFailure.database(error, path: reader.path)
    }
}

/// Reads a `--since`/`--until` value, or fails validation naming the option.
func parseTime(_ text: String?, option: String) throws -> Int64? {
    guard let text else { return nil }
    guard let milliseconds = TimeArgument.parse(text, now: WallClock.nowMilliseconds()) else {
        throw ValidationError("\(option): cannot read \"\(text)\"; \(TimeArgument.expectedForms)")
    }
    return milliseconds
}

extension NotificationFormatter {
    /// Fitted to standard output: its terminal's width (unless `fitting` is off) and colour.
    static func forStandardOutput(fitting: Bool = true) -> NotificationFormatter {
        let environment = ProcessEnvironment.current
        return NotificationFormatter(
            now: WallClock.nowMilliseconds(),
            width: fitting ? Terminal.width(of: 1, environment: environment) : nil,
            useColor: Terminal.usesColor(1, environment: environment))
    }
}
