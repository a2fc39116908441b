// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation

/// A child process with its stdout and stderr captured in files; killed if still running when
/// the test lets go of it.
final class ManagedProcess: @unchecked Sendable {
    let process = Process()
    let stdoutPath: String
    let stderrPath: String
    /// Held so the directory (its files, the database) outlives the process using it.
    private let directory: TemporaryDirectory

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: TemporaryDirectory, name: String) throws {
        self.directory = directory
        stdoutPath = directory.file("\(name).stdout")
        stderrPath = directory.file("\(name).stderr")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // A clean environment: nothing of the test runner's INTRAPUSH_* or NOTIFY_SOCKET leaks in.
        var base = ["PATH": "/usr/bin:/bin", "HOME": directory.path]
        base.merge(environment) { $1 }
        process.environment = base
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the exit and returns its status (the signal number + 128 when killed).
    func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
        try await process.exitStatus(within: timeout)
    }

    deinit {
        process.killIfRunning()
    }
}

extension Process {
    /// Waits for the exit and returns its status (the signal number + 128 when killed).
    func exitStatus(within timeout: Duration) async throws -> Int32 {
        try await eventually(timeout: timeout, interval: .milliseconds(5), "process \(processIdentifier) to exit") { !isRunning }
        return terminationReason == .uncaughtSignal ? 128 + terminationStatus : terminationStatus
    }

    /// SIGKILL and reap, so that no test leaves a process behind.
    func killIfRunning() {
        guard isRunning else { return }
        kill(processIdentifier, SIGKILL)
        waitUntilExit()
    }
}
