// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation

/// The datagram socket systemd would listen on as `NOTIFY_SOCKET`: collects every message.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private(set) var messages: [String] = []

    init(directory: TemporaryDirectory, name: String = "notify.sock") throws {
        path = directory.file(name)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    /// Reads whatever arrived since the last call.
    func drain() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
        return messages
    }

    /// Every `KEY=VALUE` line received, in order.
    var assignments: [String] {
        drain().flatMap { $0.split(separator: "\n").map(String.init) }
    }

    /// Waits for an assignment that matches, and returns the first one.
    @discardableResult
    func waitFor(_ assignment: @escaping (String) -> Bool, _ what: String) async throws -> String {
        try await eventually(what) { assignments.contains(where: assignment) }
        return assignments.first(where: assignment)!
    }

    deinit {
        close(descriptor)
    }
}
