// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation

/// The local API's socket held by the test as systemd holds it for `intrapush.socket`: bound and
/// listening once, handed to each daemon started on it (socket activation: the descriptor as 3,
/// `LISTEN_FDS=1`, `LISTEN_PID` the daemon's own), and open across their restarts, so that a
/// caller connecting between two daemons waits in its queue for the next one.
final class HeldSocket: @unchecked Sendable {
    let path: String
    let descriptor: Int32

    init(path: String) throws {
        self.path = path
        let made = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(made, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard made >= 0, bound == 0, listen(made, 256) == 0 else {
            let code = errno
            close(made)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        // Above 3, so that the daemon's descriptor 3 is always a copy without close-on-exec.
        descriptor = fcntl(made, F_DUPFD_CLOEXEC, 10)
        close(made)
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Starts `intrapushd --config configPath` on this socket, its output in the directory's
    /// `name.stdout` and `name.stderr`.
    func startDaemon(configPath: String, directory: TemporaryDirectory, name: String) throws -> SpawnedDaemon {
        let stdoutPath = directory.file("\(name).stdout")
        let stderrPath = directory.file("\(name).stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        // The shell's own pid is the daemon's once it execs: LISTEN_PID must name it.
        let arguments = [
            "/bin/sh", "-c", #"LISTEN_FDS=1 LISTEN_PID=$$ exec "$0" "$@""#, Binaries.path("intrapushd"), "--config", configPath,
        ]
        let environment = ["PATH=/usr/bin:/bin", "HOME=\(directory.path)"]
        var pid: pid_t = 0
        let result = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp) }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        return SpawnedDaemon(pid: pid, stderrPath: stderrPath)
    }
}

/// A daemon started by `HeldSocket`; killed if still running when the test lets go of it.
final class SpawnedDaemon: @unchecked Sendable {
    let pid: pid_t
    let stderrPath: String
    private var status: Int32?

    init(pid: pid_t, stderrPath: String) {
        self.pid = pid
        self.stderrPath = stderrPath
    }

    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) {
        if status == nil { kill(pid, signal) }
    }

    /// Waits for the exit and returns its status (the signal number + 128 when killed).
    func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
        try await eventually(timeout: timeout, interval: .milliseconds(5), "intrapushd \(pid) to exit") { self.reap() != nil }
        return status!
    }

    private func reap() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let signalled = raw & 0x7f
        status = signalled == 0 ? (raw >> 8) & 0xff : 128 + signalled
        return status
    }

    deinit {
        if reap() == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }
}

/// `strings` as a NULL-terminated array of C strings, for exec.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return body(pointers + [nil])
}
