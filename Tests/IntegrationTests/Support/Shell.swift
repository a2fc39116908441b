// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation

/// Runs `command` with /bin/sh; returns its stdout without the final newline; fails on a
/// non-zero status.
func shell(_ command: String, in directory: TemporaryDirectory) async throws -> String {
    let result = try await runCLI([], directory: directory, executable: "/bin/sh", ["-c", command])
    guard result.status == 0 else {
        throw ShellFailed(description: "`\(command)` exited \(result.status): \(result.stderr)\(result.stdout)")
    }
    return result.stdout.hasSuffix("\n") ? String(result.stdout.dropLast()) : result.stdout
}

struct ShellFailed: Error, CustomStringConvertible {
    var description: String
}

/// promtool from Debian's `prometheus` package (`make test-deps` installs it).
func promtool() throws -> String {
    let path = "/usr/bin/promtool"
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw ShellFailed(description: "promtool is missing: run `make test-deps` (Debian's prometheus package)")
    }
    return path
}

/// A port free right now (bound, then released): for a daemon that must be told its port.
func freeTCPPort() throws -> Int {
    try SilentListener().port
}

/// A TCP listener that never accepts: the kernel completes the handshake, nobody answers.
final class SilentListener: @unchecked Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0, listen(fd, 16) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
