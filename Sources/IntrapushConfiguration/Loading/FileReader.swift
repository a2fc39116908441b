// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the small files the configuration names — the configuration itself, the token, the CA
/// file — with plain POSIX calls, so that a failure reads like the system's own (`No such file or
/// directory`) instead of a Foundation error domain.
///
/// Only regular files are read. Every open is non-blocking, so that a named pipe (FIFO) put in
/// place of one — whose open would wait for a writer, forever — is refused at once, like a
/// device or a socket.
package enum FileReader {
    package struct Failure: Error, Equatable {
        /// `strerror` text, or our own reason such as "is a directory".
        package var reason: String
        /// The file does not exist (as opposed to existing and being unreadable).
        var isMissing: Bool
    }

    /// Large enough for any sane configuration, token or CA bundle; refusing more keeps a
    /// mistaken `token_file = /dev/zero` from eating memory.
    static let maximumSize = 16 << 20

    static func readText(atPath path: String) -> Result<String, Failure> {
        switch readBytes(atPath: path) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let bytes):
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(Failure(reason: "is not valid UTF-8 text", isMissing: false))
            }
            return .success(text)
        }
    }

    /// Whether `path` is a regular file this process can open for reading; the reason when not.
    /// Something is at `path` (whether readable or not).
    static func exists(_ path: String) -> Bool {
        var information = stat()
        return lstat(path, &information) == 0
    }

    static func checkReadable(atPath path: String) -> Failure? {
        let descriptor = openForReading(path)
        guard descriptor >= 0 else { return openFailure(path) }
        defer { close(descriptor) }
        return checkRegularFile(descriptor)
    }

    package static func readBytes(atPath path: String) -> Result<[UInt8], Failure> {
        let descriptor = openForReading(path)
        guard descriptor >= 0 else { return .failure(openFailure(path)) }
        defer { close(descriptor) }
        if let failure = checkRegularFile(descriptor) { return .failure(failure) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(systemFailure())
            }
            if count == 0 { return .success(bytes) }
            bytes += chunk[..<count]
            if bytes.count > maximumSize {
                return .failure(Failure(reason: "is larger than \(maximumSize >> 20) MiB", isMissing: false))
            }
        }
    }

    /// Non-blocking (a FIFO opens at once instead of waiting for a writer), and never this
    /// process's controlling terminal.
    private static func openForReading(_ path: String) -> Int32 {
        open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    }

    /// A socket cannot be opened at all (`ENXIO`): say what it is rather than "No such device".
    private static func openFailure(_ path: String) -> Failure {
        let failure = systemFailure()
        var status = stat()
        if !failure.isMissing, lstat(path, &status) == 0, let kind = notRegular(status.st_mode) {
            return Failure(reason: kind, isMissing: false)
        }
        return failure
    }

    private static func checkRegularFile(_ descriptor: Int32) -> Failure? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return systemFailure() }
        return notRegular(status.st_mode).map { Failure(reason: $0, isMissing: false) }
    }

    /// What a file that is not a regular one is, in words; nil for a regular file.
    private static func notRegular(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "is a directory"
        case S_IFIFO: "is a named pipe (FIFO), not a regular file"
        case S_IFSOCK: "is a socket, not a regular file"
        case S_IFCHR, S_IFBLK: "is a device, not a regular file"
        default: "is not a regular file"
        }
    }

    private static func systemFailure() -> Failure {
        let code = errno
        return Failure(reason: String(cString: strerror(code)), isMissing: code == ENOENT || code == ENOTDIR)
    }
}
