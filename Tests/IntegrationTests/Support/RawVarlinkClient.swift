// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A Varlink client that speaks whatever bytes a test gives it, as a careless or hostile
/// group member would, and reads what the daemon answers until it closes.
final class RawVarlinkClient {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
            raw[path.utf8.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    deinit { close(descriptor) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Everything the daemon writes until it closes the connection, or `nil` when it has not
    /// closed it within `timeout`.
    func readUntilClosed(timeout: Duration = .seconds(20)) -> String? {
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? nil : String(decoding: answer, as: UTF8.self) }
            if count == 0 { return String(decoding: answer, as: UTF8.self) }
            answer.append(contentsOf: chunk[0..<count])
        }
    }
}

extension RawVarlinkClient {
    /// A Varlink call as raw bytes: the JSON text and its NUL.
    func call(_ json: String) {
        send(json + "\u{0}")
    }

    /// The next NUL-terminated reply, or `nil` when the connection closed or nothing came in time.
    func reply(timeout: Duration = .seconds(20)) -> String? {
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            if byte == 0 { return String(decoding: answer, as: UTF8.self) }
            answer.append(byte)
        }
    }
}

extension RawVarlinkClient {
    /// Waits, reading nothing, until the daemon closes its end: a stalled reader's view. True
    /// when it closed within `timeout`.
    func waitForHangUp(timeout: Duration) -> Bool {
        // POLLRDHUP (Linux, not exported to Swift): the peer closed, even with data unread.
        let peerClosed: Int16 = 0x2000
        var entry = pollfd(fd: descriptor, events: peerClosed, revents: 0)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&entry, 1, max(milliseconds, 1))
            if ready < 0 && errno == EINTR { continue }
            return ready > 0 && entry.revents & (peerClosed | Int16(POLLHUP)) != 0
        }
        return false
    }
}
