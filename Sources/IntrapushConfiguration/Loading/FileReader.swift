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
    static func checkReadable(atPath path: String) -> Failure? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return systemFailure() }
        defer { close(descriptor) }
        return checkRegularFile(descriptor)
    }

    package static func readBytes(atPath path: String) -> Result<[UInt8], Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(systemFailure()) }
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

    private static func checkRegularFile(_ descriptor: Int32) -> Failure? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return systemFailure() }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            let isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
            return Failure(reason: isDirectory ? "is a directory" : "is not a regular file", isMissing: false)
        }
        return nil
    }

    private static func systemFailure() -> Failure {
        let code = errno
        return Failure(reason: String(cString: strerror(code)), isMissing: code == ENOENT || code == ENOTDIR)
    }
}
