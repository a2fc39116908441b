// SPDX-License-Identifier: Apache-2.0

import IntrapushDevServer
import NIOCore
import NIOWebSocket
import Testing

@Suite("Dev server end to end", .timeLimit(.minutes(1)))
struct DevServerEndToEndTests {
    @Test("a wrong token is answered with 401, a forced rejection with 403, other paths with 404, a malformed path or host with 400")
    func upgradeRejections() async throws {
        try await withDevServer { server, client in
            let wrong = try await client.send(.GET, connectPath(token: "guess"), headers: upgradeHeaders)
            #expect(wrong.status == 401)
            #expect(!wrong.body.contains("guess"))
            #expect(try await TestWebSocket.isRefused(by: server.localAddress, path: connectPath(token: "guess")))

            try await client.control("reject?status=403")
            #expect(try await client.send(.GET, connectPath(), headers: upgradeHeaders).status == 403)
            try await client.control("reject?status=0")
            #expect(try await !TestWebSocket.isRefused(by: server.localAddress, path: connectPath()))

            #expect(try await client.send(.GET, "/elsewhere", headers: upgradeHeaders).status == 404)
            // A malformed path or host is no refused token: 400, never 401 or 403 (S-HS-9, S-HOST-7).
            #expect(try await client.send(.GET, "/connect/linux/ac%zzme/t%2Fk%2Bn%3D", headers: upgradeHeaders).status == 400)
            #expect(try await client.send(.GET, "/connect/linux/acme/t%2Fk%2Bn%3D%", headers: upgradeHeaders).status == 400)
            for host in ["not a host", String(repeating: "h", count: 65), ""] {
                var headers = upgradeHeaders
                headers["Intrapush-Host"] = host
                #expect(try await client.send(.GET, connectPath(), headers: headers).status == 400, "Intrapush-Host \(host)")
            }
            let stats = try await client.stats()
            #expect(stats.upgradesRejected == 3)
            #expect(stats.connectionsTotal == 1)
        }
    }

    @Test("pushes queued before and after connecting are delivered, and acknowledgements show in the stats")
    func pushDeliveredAndAcknowledged() async throws {
        let org = "Org 1/Ü"
        try await withDevServer { server, client in
            let first = try await client.push(#"{"id":"m1","title":"Hello"}"#, org: org)
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath(org: org)) { socket in
                #expect(try await socket.nextText() == #"{"id":"m1","title":"Hello"}"#)
                let second = try await client.pushBinary([0xFF, 0x00], org: org)
                #expect(second == first + 1)
                let frame = try await socket.nextFrame()
                #expect(frame.opcode == .binary)
                #expect(Array(frame.data.readableBytesView) == [0xFF, 0x00])
                try await socket.send(text: "received message")
                try await socket.send(text: "received message")
                try await socket.sync()

                let stats = try await client.stats()
                #expect(stats.acks == 2)
                #expect(stats.acked == 2)
                #expect(stats.unacked == 0)
                #expect(stats.ackMismatches == 0)
                #expect(stats.deliveries == 2)
                #expect(stats.connectionsOpen == 1)
            }
            #expect(try await client.stats().pushesQueued == 2)
        }
    }

    @Test("pushes not acknowledged are delivered again, in order, on the next connection")
    func redeliveryInOrder() async throws {
        try await withDevServer { server, client in
            for id in ["m1", "m2", "m3"] {
                try await client.push(#"{"id":"\#(id)"}"#)
            }
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync() == [#"{"id":"m1"}"#, #"{"id":"m2"}"#, #"{"id":"m3"}"#])
                try await socket.send(text: "received message")
                try await socket.sendClose(code: .normalClosure)
                let closing = try await socket.remainingFrames()
                #expect(closing.map(\.opcode) == [.connectionClose])
                var echoedCode = try #require(closing.first).data
                #expect(echoedCode.readWebSocketErrorCode() == .normalClosure)
            }
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync() == [#"{"id":"m2"}"#, #"{"id":"m3"}"#])
                try await socket.send(text: "received message")
                try await socket.send(text: "received message")
                try await socket.sync()
            }
            let stats = try await client.stats()
            #expect(stats.acked == 3)
            #expect(stats.unacked == 0)
            #expect(stats.deliveries == 5)
            #expect(stats.closeCodes == ["1000": 1])
            #expect(stats.lastCloseCode == 1000)
        }
    }

    @Test("heartbeats are counted and echoed when asked; pings are answered and counted")
    func heartbeatsAndPings() async throws {
        try await withDevServer({ $0.echoesHeartbeats = true }) { server, client in
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                try await socket.send(text: "KA")
                #expect(try await socket.sync() == ["KA"])
                let stats = try await client.stats()
                #expect(stats.heartbeats == 1)
                #expect(stats.heartbeatTimesMilliseconds.count == 1)
                #expect(stats.pings == 1)
                #expect(stats.acks == 0)
            }
        }
    }

    @Test("a burst reaches a connected client completely and in order")
    func burstDeliveredInOrder() async throws {
        let count = 20_000
        try await withDevServer { server, client in
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                let sequenceNumbers = try await client.burst(count: count, size: 300, prefix: "b-")
                for sequenceNumber in sequenceNumbers {
                    let text = try await socket.nextText()
                    guard text.hasPrefix(#"{"id":"b-\#(sequenceNumber)""#) else {
                        Issue.record("expected push \(sequenceNumber), got \(text.prefix(40))")
                        return
                    }
                    try await socket.send(text: "received message")
                }
                try await socket.sync()
                let stats = try await client.stats()
                #expect(stats.acked == count)
                #expect(stats.ackMismatches == 0)
                #expect(stats.unacked == 0)
            }
        }
    }

    @Test("closing with 1009 drops the largest unacknowledged push; the rest is delivered again")
    func messageTooLarge() async throws {
        try await withDevServer { server, client in
            try await client.push(#"{"id":"s1"}"#)
            try await client.push(#"{"id":"big","body":"\#(String(repeating: "x", count: 100_000))"}"#)
            try await client.push(#"{"id":"s2"}"#)
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync().count == 3)
                try await socket.sendClose(code: .messageTooLarge)
                _ = try await socket.remainingFrames()
            }
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                let redelivered = try await socket.sync()
                #expect(redelivered == [#"{"id":"s1"}"#, #"{"id":"s2"}"#])
            }
            let stats = try await client.stats()
            #expect(stats.droppedTooLarge == 1)
            #expect(stats.closeCodes["1009"] == 1)
        }
    }

    @Test("control requests close with a code, drop without a close frame, and silence the server")
    func controls() async throws {
        try await withDevServer { server, client in
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                try await client.control("close?code=4000")
                let frame = try await socket.nextFrame()
                #expect(frame.opcode == .connectionClose)
                var data = frame.data
                #expect(data.readWebSocketErrorCode() == WebSocketErrorCode(codeNumber: 4000))
                // Our answer may come after the server stopped waiting for it (2 s, on a loaded
                // machine): then the stream is closed already, which is what is checked next.
                try? await socket.sendClose(code: WebSocketErrorCode(codeNumber: 4000))
                #expect(try await socket.remainingFrames().isEmpty)
            }
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                try await client.control("drop")
                #expect(try await socket.remainingFrames().isEmpty)
            }
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                try await socket.sync()
                try await client.control("silence?on=1")
                try await client.push(#"{"id":"quiet"}"#)
                #expect(try await client.stats().deliveries == 0)
                try await client.control("silence?on=0")
                #expect(try await socket.nextText() == #"{"id":"quiet"}"#)
            }
        }
    }
}
