// SPDX-License-Identifier: Apache-2.0

import IntrapushDevServer
import NIOCore
import NIOWebSocket
import Testing

/// The reference server keeps the protocol's server side (docs/protocol.md, the S- statements):
/// only acknowledgements acknowledge, the hello comes first, a message is taken once, a close
/// waits for what was sent, a silent client is dropped.
@Suite("Dev server: the server's side of the protocol", .timeLimit(.minutes(1)))
struct DevServerProtocolTests {
    @Test("a text frame that is no acknowledgement acknowledges nothing: counted, and its push comes again")
    func onlyAcknowledgementsAcknowledge() async throws {
        try await withDevServer { server, client in
            try await client.push(#"{"id":"m1"}"#)
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync() == [#"{"id":"m1"}"#])
                for text in ["not an acknowledgement", #"{"type":"no id"}"#, "received message m1", "KA", #"{"id":7}"#] {
                    try await socket.send(text: text)
                }
                try await socket.sync()
                try await socket.sendClose(code: .normalClosure)
                _ = try await socket.remainingFrames()
            }
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync() == [#"{"id":"m1"}"#], "nothing above acknowledged the push")
                try await socket.send(text: "received message")
                try await socket.sync()
            }
            let stats = try await client.stats()
            #expect(stats.acks == 1 && stats.acked == 1)
            #expect(stats.ackMismatches == 4, "every frame that was no acknowledgement, heartbeat or message is counted")
            #expect(stats.heartbeats == 1)
        }
    }

    @Test("with a hello to expect, nothing is delivered before it, and a connection opening with another frame is closed with 1008")
    func hello() async throws {
        try await withDevServer({ $0.helloText = #"{"type":"hello","token":"{token}"}"# }) { server, client in
            try await client.push(#"{"id":"h1"}"#)
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync() == [], "no push before the hello")
                try await socket.send(text: #"{"type":"hello","token":"wrong"}"#)
                let frames = try await socket.remainingFrames()
                #expect(frames.map(\.opcode) == [.connectionClose])
                var code = try #require(frames.first).data
                #expect(code.readWebSocketErrorCode() == .policyViolation)
            }
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                try await socket.send(text: #"{"type":"hello","token":"t/k+n="}"#)
                #expect(try await socket.sync() == [#"{"id":"h1"}"#])
                try await socket.send(text: "received message")
                try await socket.sync()
            }
            let stats = try await client.stats()
            #expect(stats.hellos == 1 && stats.hellosRefused == 1)
            #expect(stats.acked == 1)
            #expect(try await client.upstream().count == 0, "a hello is no message")
        }
    }

    @Test("with a hello to expect, a connection that sends none is closed with 1008 once the hello timeout passed")
    func helloTimeout() async throws {
        try await withDevServer({
            $0.helloText = #"{"type":"hello","token":"{token}"}"#
            $0.helloTimeout = .milliseconds(300)
        }) { server, _ in
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                let frames = try await socket.remainingFrames()
                #expect(frames.map(\.opcode) == [.connectionClose])
                var code = try #require(frames.first).unmaskedData
                #expect(code.readWebSocketErrorCode() == .policyViolation)
            }
        }
    }

    @Test("a message sent again is acknowledged again, taken and answered once")
    func messageTakenOnce() async throws {
        try await withDevServer({ $0.echoesUpstream = true }) { server, client in
            for _ in 1...2 {
                try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                    try await socket.send(text: #"{"id":"q\"1","ask":1}"#)
                    let frames = try await socket.sync()
                    #expect(frames.contains("received message q\"1"), "\(frames)")
                    try await socket.sendClose(code: .normalClosure)
                    _ = try await socket.remainingFrames()
                }
            }
            let stats = try await client.stats()
            #expect(stats.pushesQueued == 1, "one echo for the two copies")
            let upstream = try await client.upstream()
            #expect(upstream.count == 2 && upstream.distinct == 1)
        }
    }

    @Test("a JSON-shaped upstream acknowledgement carries the id JSON-escaped; a reply names its request in reply_to_field")
    func jsonUpstreamAcknowledgement() async throws {
        try await withDevServer({
            $0.upstreamAcknowledgementTemplate = #"{"type":"ack","id":"{id}"}"#
            $0.upstreamIDField = "uid"
            $0.echoesUpstream = true
        }) { server, client in
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                try await socket.send(text: #"{"uid":"a\"b\\c","n":1}"#)
                let frames = try await socket.sync()
                #expect(frames.contains(#"{"type":"ack","id":"a\"b\\c"}"#), "\(frames)")
                #expect(frames.contains { $0.hasPrefix(#"{"uid":"a\"b\\c","echo":"#) }, "\(frames.map(\.debugDescription))")
            }
        }
    }

    @Test("a close waits for what was sent to be acknowledged and sends nothing new meanwhile; now=1 closes at once")
    func closeDrains() async throws {
        try await withDevServer { server, client in
            try await client.push(#"{"id":"d1"}"#)
            try await client.push(#"{"id":"d2"}"#)
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync().count == 2)
                try await socket.send(text: "received message")
                try await client.control("close?code=1001")
                try await client.push(#"{"id":"d3"}"#)
                #expect(try await socket.sync() == [], "no close and no new push while d2 waits for its acknowledgement")
                try await socket.send(text: "received message")
                let frame = try await socket.nextFrame()
                #expect(frame.opcode == .connectionClose)
                try await socket.sendClose(code: .goingAway)
                _ = try await socket.remainingFrames()
            }
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync() == [#"{"id":"d3"}"#], "what came during the close goes on the next connection")
                try await client.control("close?code=1001&now=1")
                let frame = try await socket.nextFrame()
                #expect(frame.opcode == .connectionClose, "at once, d3 unacknowledged")
                try await socket.sendClose(code: .goingAway)
                _ = try await socket.remainingFrames()
            }
            #expect(try await client.stats().acked == 2)
        }
    }

    @Test("a client silent for the idle timeout is dropped with 1001 idle; one that heartbeats is not")
    func idleTimeout() async throws {
        // Heartbeats for more than an idle timeout, then silence. Judged by the times this side
        // sent, never by how soon the server answers: a server that heeds heartbeats closes only
        // after a silence of the idle timeout, so its close comes at least that long after the
        // last heartbeat sent, never while they come at a client's pace. A stall of this process
        // as long as the timeout is a real silence: the check then cannot tell, and says so. The
        // frames reach the wire on the event loop's thread, after the task that sends them: the
        // timeout is long enough that no loaded machine holds that thread back so long (2 s did
        // not hold on a fresh machine's make check).
        let idle = Duration.seconds(10)
        try await withDevServer({ $0.idleTimeout = idle }) { server, client in
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                let clock = ContinuousClock()
                var last = clock.now
                var longestGap = Duration.zero
                var closedWhileSending = false
                for _ in 1...120 {
                    try await Task.sleep(for: .milliseconds(100))  // heartbeats at a client's pace
                    longestGap = max(longestGap, clock.now - last)
                    do { try await socket.send(text: "KA") } catch {
                        closedWhileSending = true
                        break
                    }
                    last = clock.now
                }
                // Once silent: a close frame that says why (S-HB-4), 1001 "idle", and nothing else.
                let frames = try await socket.remainingFrames()
                let silence = clock.now - last
                if longestGap < idle {
                    #expect(!closedWhileSending && silence >= idle, "closed \(silence) after the last heartbeat, while heartbeats came")
                } else {
                    print("idleTimeout: this process stalled \(longestGap) between heartbeats: whether they were heeded is not judged")
                }
                #expect(frames.map(\.opcode) == [.connectionClose], "\(frames)")
                var data = try #require(frames.first).unmaskedData
                #expect(data.readWebSocketErrorCode() == .goingAway)
                #expect(data.readString(length: data.readableBytes) == "idle")
            }
            #expect(try await client.stats().idleDrops == 1)
        }
    }

    @Test("a text push must be UTF-8; other bytes go as binary")
    func textPushIsUTF8() async throws {
        try await withDevServer { _, client in
            let refused = try await client.send(.POST, "/push", body: ByteBuffer(bytes: [0x7B, 0xFF, 0x7D]))
            #expect(refused.status == 400)
            #expect(refused.body.contains("UTF-8"))
        }
    }

    @Test("the token in Authorization: Bearer on a path without it")
    func bearerToken() async throws {
        try await withDevServer { server, client in
            let withoutToken = try await client.send(.GET, "/connect/linux/acme", headers: upgradeHeaders)
            #expect(withoutToken.status == 401)
            let refused = try await TestWebSocket.isRefused(by: server.localAddress, path: "/connect/linux/acme")
            let accepted = try await !TestWebSocket.isRefused(
                by: server.localAddress, path: "/connect/linux/acme", headers: ["Authorization": "Bearer \(testToken)"])
            #expect(refused && accepted)
        }
    }
}
