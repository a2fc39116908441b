#if canImport(Glibc)
import Glibc
#endif

/// The client's side of the control socket (`ControlServer` in the daemon): one request per
/// connection, blocking, no threads. The CLI calls the daemon with it; the daemon probes with it
/// whether another daemon holds the socket.
package enum ControlClient {
    /// Why a request did not reach the daemon.
    package enum Failure: Error, Equatable {
        /// Nothing listens: no socket file, or a stale one (the daemon is stopped).
        case notRunning(path: String)
        /// The socket exists, and this user may not connect to it.
        case permissionDenied(path: String)
        /// Anything else: a broken connection, an answer that cannot be read.
        case failed(path: String, reason: String)
        /// The daemon took the connection but did not answer in time (stopped, or hung).
        case noAnswer(path: String)
    }

    package enum Probe: Equatable {
        case answered
        case failed(Failure)
    }

    /// Whether a daemon accepts connections on `path`.
    package static func probe(path: String) -> Probe {
        switch connect(path: path) {
        case .success(let descriptor):
            close(descriptor)
            return .answered
        case .failure(let failure):
            return .failed(failure)
        }
    }

    /// Sends one request and waits for the answer: the exit status it carries and its text.
    /// With `timeout`, a daemon that does not answer within it is `.noAnswer`.
    package static func call(
        path: String, verb: String, argument: String = "-", body: String, timeout: Duration? = nil
    ) throws(Failure) -> (status: Int32, body: String) {
        let descriptor = try connect(path: path).get()
        defer { close(descriptor) }
        if let timeout {
            var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        let request = ControlRequestHeader.encode(verb: verb, argument: argument, body: body)
        guard writeAll(descriptor, request) else { throw .failed(path: path, reason: String(cString: strerror(errno))) }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw .noAnswer(path: path) }
            guard count > 0 else { break }
            answer.append(contentsOf: chunk[0..<count])
            if let parsed = ControlAnswer.parse(answer) { return (parsed.status, parsed.body) }
        }
        throw .failed(path: path, reason: "the daemon closed the connection without answering; see its log (journalctl -u intrapush)")
    }

    private static func connect(path: String) -> Result<Int32, Failure> {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(.failed(path: path, reason: String(cString: strerror(errno)))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            return .failure(.failed(path: path, reason: "the path is too long for a Unix socket"))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            switch code {
            case ENOENT, ECONNREFUSED, ENOTDIR: return .failure(.notRunning(path: path))
            case EACCES, EPERM: return .failure(.permissionDenied(path: path))
            default: return .failure(.failed(path: path, reason: String(cString: strerror(code))))
            }
        }
        return .success(descriptor)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
