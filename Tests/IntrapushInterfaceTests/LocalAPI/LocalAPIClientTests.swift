// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IntrapushInterface
import TestSupport
import Testing

/// The typed client through a restart of the daemon: a call whose connection closes before
/// its first reply is sent once more, quietly, when it may repeat; a message to the server is not.
@Suite("The local API's client through a restart")
struct LocalAPIClientTests {
    /// A server on a Unix socket that, for each connection in turn, reads one call and either
    /// closes unanswered or answers `reply`; it records the methods it read.
    final class ScriptedServer: @unchecked Sendable {
        let path: String
        private let descriptor: Int32
        private let lock = NSLock()
        private var methods: [String] = []

        init(directory: TemporaryDirectory, script: [String?]) throws {
            path = directory.file("api.sock")
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: Array(path.utf8))
                raw[path.utf8.count] = 0
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(descriptor, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
            let listener = descriptor
            Thread { [self] in
                for reply in script {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { return }
                    var call: [UInt8] = []
                    var byte: UInt8 = 0
                    while read(connection, &byte, 1) == 1, byte != 0 { call.append(byte) }
                    let text = String(decoding: call, as: UTF8.self)
                    lock.withLock { methods.append(text.contains("\"method\":\"") ? String(text.split(separator: "\"")[3]) : text) }
                    if let reply { _ = (reply + "\u{0}").utf8CString.withUnsafeBytes { write(connection, $0.baseAddress, $0.count - 1) } }
                    close(connection)
                }
            }.start()
        }

        var calls: [String] { lock.withLock { methods } }

        deinit { close(descriptor) }
    }

    @Test("a count closed unanswered is asked again on a new connection, and its answer returned")
    func readRepeatsOnce() throws {
        let directory = try TemporaryDirectory("client")
        let server = try ScriptedServer(directory: directory, script: [nil, #"{"parameters":{"count":7}}"#])
        let client = try LocalAPIClient(path: server.path)
        let reply = try client.call(NotificationsInterface.Count.self, .init(), timeout: .seconds(10))
        #expect(reply.count == 7)
        #expect(server.calls == ["io.intrapush.Notifications.Count", "io.intrapush.Notifications.Count"])
    }

    @Test("closed unanswered twice: the second time is the caller's to hear")
    func repeatsOnlyOnce() throws {
        let directory = try TemporaryDirectory("client")
        let server = try ScriptedServer(directory: directory, script: [nil, nil, #"{"parameters":{"count":7}}"#])
        let client = try LocalAPIClient(path: server.path)
        #expect(throws: LocalAPIError<NotificationsInterface.Failure>.unreachable(.closedUnanswered(path: server.path))) {
            try client.call(NotificationsInterface.Count.self, .init(), timeout: .seconds(10))
        }
    }

    @Test("a message to the server is not sent again: a second copy could be queued")
    func sendDoesNotRepeat() throws {
        let directory = try TemporaryDirectory("client")
        let server = try ScriptedServer(directory: directory, script: [nil, #"{"parameters":{"row":1,"message_id":"m"}}"#])
        let client = try LocalAPIClient(path: server.path)
        #expect(throws: LocalAPIError<OutboxInterface.Failure>.unreachable(.closedUnanswered(path: server.path))) {
            try client.call(OutboxInterface.Send.self, .init(message: #"{"id":"m"}"#), timeout: .seconds(10))
        }
        #expect(server.calls == ["io.intrapush.Outbox.Send"])
    }
}
