// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers

@testable import IntrapushConfiguration
@testable import IntrapushDaemonKit
@testable import IntrapushQuery
@testable import IntrapushInterface

/// A temporary folder for hook scripts and what they record, removed on release.
final class HookTestFixture {
    private let temporary: TemporaryDirectory
    var directory: String { temporary.path }
    let logs = CapturedLogs()

    init() throws {
        temporary = try TemporaryDirectory("hook")
    }

    func path(_ name: String) -> String { directory + "/" + name }

    /// Writes a `sh` script whose body can use `$DIR`, the fixture's folder, and returns the
    /// command line that runs it: `/bin/sh 'path'`.
    ///
    /// The script is read by `sh` rather than executed itself because tests run in parallel:
    /// a child spawned by another test may still hold the file open for writing at the moment
    /// it is executed, which fails with ETXTBSY.
    func script(_ name: String, _ body: String) throws -> String {
        let path = path(name)
        try "DIR='\(directory)'\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
        return "/bin/sh '\(path)'"
    }

    func contents(_ name: String) -> String? {
        try? String(contentsOfFile: path(name), encoding: .utf8)
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    func runner(
        _ commandLine: String, settings: HookRunner.Settings = HookRunner.Settings(),
        environment: [String: String] = ["PATH": "/usr/bin:/bin"]
    ) throws -> HookRunner {
        try HookRunner(
            command: HookCommandLine(parsing: commandLine), settings: settings, environment: environment,
            logger: Logger(label: "hook-test") { _ in CapturedLogHandler(logs: self.logs) }
        )
    }
}

/// A notification as the store would hand it over.
func notification(_ id: Int64, messageID: String? = nil, title: String? = "Title", body: String? = "Body") -> NotificationRecord {
    NotificationRecord(
        id: id, messageID: messageID, receivedAt: 1_763_773_323_456, payload: #"{"id":"m\#(id)"}"#, title: title,
        body: body, readAt: nil
    )
}

/// Log events kept in memory, for assertions (never `LoggingSystem.bootstrap` in tests).
final class CapturedLogs: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let box = NIOLockedValueBox<[Entry]>([])

    var entries: [Entry] { box.withLockedValue { $0 } }

    func append(_ entry: Entry) { box.withLockedValue { $0.append(entry) } }
}

struct CapturedLogHandler: LogHandler {
    let logs: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        logs.append(.init(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
