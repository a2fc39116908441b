// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// One blocking connection to a Varlink service (the daemon's local API): messages out, replies
/// in, no threads. `LocalAPIClient` speaks the interfaces through it; the daemon uses it to tell
/// whether another daemon holds the socket.
package final class VarlinkConnection {
    /// Why a call did not reach the daemon, or its answer did not come back.
    package enum Failure: Error, Equatable {
        /// Nothing listens: no socket file, or a stale one (the daemon is stopped).
        case notRunning(path: String)
        /// The socket exists, and this user may not connect to it.
        case permissionDenied(path: String)
        /// Anything else: a broken connection, an answer that cannot be read.
        case failed(path: String, reason: String)
        /// The daemon took the call but did not answer in time (stopped, or hung).
        case noAnswer(path: String)
        /// The daemon closed the connection before it answered: it was stopping, and took no
        /// call it had not begun (or it died). Under the unit the next daemon answers on the
        /// same socket.
        case closedUnanswered(path: String)
    }

    package let path: String
    /// The socket, for a caller that waits for a stream's next reply in its own poll(2).
    package let descriptor: Int32
    /// What was read and not yet returned: from `start`, with no NUL before `searched`.
    private var received: [UInt8] = []
    private var start = 0
    private var searched = 0
    /// A reply longer than this is not one of ours.
    static let longestReply = 256 << 20

    /// Connects to the daemon's socket.
    package init(path: String) throws(Failure) {
        self.path = path
        descriptor = try Self.connect(path: path).get()
    }

    deinit { close(descriptor) }

    /// Whether a daemon accepts connections on `path`.
    package static func isAnswered(path: String) -> Bool {
        guard case .success(let descriptor) = connect(path: path) else { return false }
        close(descriptor)
        return true
    }

    /// Writes `call` without waiting for anything.
    package func send(_ call: VarlinkCall) throws(Failure) {
        guard Self.writeAll(descriptor, call.encoded) else {
            if errno == EPIPE || errno == ECONNRESET { throw .closedUnanswered(path: path) }
            throw .failed(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// The next reply on this connection. With `timeout`, a daemon that does not answer within
    /// it is `.noAnswer` (`.zero`: only what has arrived). Each byte is searched for the NUL
    /// that ends a reply once, however many reads a long reply takes.
    package func nextReply(timeout: Duration? = nil) throws(Failure) -> VarlinkReply {
        while true {
            if let end = received[searched...].firstIndex(of: 0) {
                let reply = received[start..<end].withUnsafeBufferPointer { VarlinkReply.parse($0) }
                start = end + 1
                searched = start
                if start == received.count {
                    received.removeAll(keepingCapacity: received.count <= 1 << 20)
                    (start, searched) = (0, 0)
                }
                guard let reply else {
                    throw .failed(path: path, reason: "the daemon's answer could not be read; is intrapush the same version as intrapushd?")
                }
                return reply
            }
            searched = received.count
            guard received.count - start <= Self.longestReply else {
                throw .failed(path: path, reason: "the daemon's answer is longer than \(Self.longestReply >> 20) MiB")
            }
            if let timeout {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0 && errno == EINTR { continue }
                guard ready > 0 else { throw .noAnswer(path: path) }
            }
            if start > 0 {
                // What was returned goes before the buffer grows again.
                received.removeSubrange(..<start)
                searched -= start
                start = 0
            }
            let before = received.count
            received.append(contentsOf: repeatElement(0, count: 65536))
            let count = received.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + before, 65536, 0) }
            received.removeSubrange((before + max(count, 0))...)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                guard count == 0 || errno == ECONNRESET else { throw .failed(path: path, reason: String(cString: strerror(errno))) }
                throw .closedUnanswered(path: path)
            }
        }
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
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
