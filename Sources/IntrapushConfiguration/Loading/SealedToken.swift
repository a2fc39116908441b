// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The token the package sealed with systemd-creds (bound to this host's key, and to its TPM2
/// where there is one), read outside the unit: by `intrapushd --check-config` run by an
/// administrator, or by the package's scripts. Under the unit, systemd decrypts it itself
/// (`LoadCredentialEncrypted=`) and the daemon reads `$CREDENTIALS_DIRECTORY/token`.
///
/// `systemd-creds decrypt` does the work: only root can read the host's key. Its output is the
/// token, read through a pipe, never through a file or an argument.
enum SealedToken {
    static let tool = "/usr/bin/systemd-creds"

    /// The decrypted bytes, or why not (without the token).
    static func decrypt(atPath path: String) -> Result<[UInt8], FileReader.Failure> {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return .failure(.init(reason: String(cString: strerror(errno)), isMissing: false)) }
        // No other program the process starts meanwhile inherits the pipe; the child gets it as 1.
        _ = fcntl(pipe[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipe[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [tool, "decrypt", "--name=token", path, "-"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), nil]
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, &argv, &environment)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            return .failure(.init(reason: "\(tool): \(String(cString: strerror(spawned)))", isMissing: false))
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while output.count <= 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output += buffer[..<count]
        }
        // Closed before the wait: a child with more to say than a token gets EPIPE, not a full
        // pipe that nobody reads while we wait for it.
        close(pipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            return .failure(.init(reason: "systemd-creds cannot decrypt it (this host's key changed, or not run as root)", isMissing: false))
        }
        return .success(output)
    }
}
