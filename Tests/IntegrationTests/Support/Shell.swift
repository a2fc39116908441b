import Foundation

/// Runs `command` with /bin/sh; returns its stdout without the final newline; fails on a
/// non-zero status.
func shell(_ command: String, in directory: TestDirectory) async throws -> String {
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

/// A loopback TCP socket listening on a port the kernel chose, held open while it lives.
final class TCPListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw ShellFailed(description: "cannot bind a loopback port: errno \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

/// A port free right now (bound, then released): for a daemon that must be told its port.
func freeTCPPort() throws -> Int {
    try TCPListener().port
}
