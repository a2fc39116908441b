// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation

/// What a finished `intrapush` run printed and how it exited.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [Substring] { stdout.split(separator: "\n") }
}

/// Runs `intrapush` (or `executable` with `executableArguments`) to completion in a clean
/// environment; stdout is a file, not a terminal.
func runCLI(
    _ arguments: [String], environment: [String: String] = [:], directory: TemporaryDirectory,
    executable: String? = nil, _ executableArguments: [String] = []
) async throws -> CLIResult {
    let process = try ManagedProcess(
        executable ?? Binaries.path("intrapush"), executable == nil ? arguments : executableArguments,
        environment: environment, directory: directory, name: "cli-\(UUID().uuidString.prefix(8))")
    let status = try await process.waitForExit()
    return CLIResult(status: status, stdout: process.stdout, stderr: process.stderr)
}

/// `intrapush follow` with its stdout on a pipe that the test reads, and may close like `head` does.
final class FollowProcess: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private var buffered = Data()

    init(_ arguments: [String], directory: TemporaryDirectory) throws {
        process.executableURL = URL(fileURLWithPath: Binaries.path("intrapush"))
        process.arguments = ["follow"] + arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path]
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        // Only the child keeps the write end; otherwise the reader would never see it close.
        try output.fileHandleForWriting.close()
    }

    /// The next line, waiting at most `timeout` for it (poll(2) on the pipe, no sleeping).
    func nextLine(timeout: Duration = .seconds(10)) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        let descriptor = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&pollDescriptor, 1, max(1, milliseconds)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    /// Closes the reading end, as `head -1` does after its line.
    func closeOutput() throws {
        try output.fileHandleForReading.close()
    }

    func waitForExit(timeout: Duration = .seconds(10)) async throws -> Int32 {
        try await process.exitStatus(within: timeout)
    }

    deinit {
        process.killIfRunning()
    }
}

/// The lines a child process writes on a pipe, each waited for at most a given time (poll(2),
/// no sleeping).
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffered = Data()

    init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// The next line without its newline; `nil` when the pipe closed first.
    func next(timeout: Duration) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw ShellFailed(description: "no line within \(timeout)") }
            var entry = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&entry, 1, max(1, milliseconds)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(handle.fileDescriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }
}
