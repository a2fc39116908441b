// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// The local API under abuse (docs/operating.md, "Limits"): every call is answered or refused with an error
/// its interface declares, a stream that is not Varlink is closed, nothing crashes the daemon,
/// and nothing it holds grows without bound.
extension Integration {
    @Suite("Local API: limits and hostile calls")
    struct LocalAPIAbuseTests {
        func socketPath(_ daemon: DaemonHandle) -> String { daemon.databasePath + ".sock" }

        /// The id of the notification a Subscribe reply carries.
        func notificationID(_ reply: Substring) -> Int? {
            let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
            let notification = (object?["parameters"] as? [String: Any])?["notification"] as? [String: Any]
            return (notification?["id"] as? NSNumber)?.intValue
        }

        /// The daemon still answers an ordinary call.
        func expectAlive(_ daemon: DaemonHandle) throws {
            let client = try RawVarlinkClient(path: socketPath(daemon))
            client.call(#"{"method":"io.intrapush.Daemon.Status"}"#)
            #expect(client.reply()?.contains(#""state":{"#) == true, "the daemon answers Status")
        }

        @Test("a request's timeout beyond any duration is refused as an invalid parameter, not a crash")
        func hugeRequestTimeout() async throws {
            let (_, _, _, daemon) = try await startConnected()
            for timeout in ["9223372036854775807", "99999999999999999999999", "0", "-5", "1e3", "\"x\""] {
                let client = try RawVarlinkClient(path: socketPath(daemon))
                client.call(#"{"method":"io.intrapush.Outbox.Request","parameters":{"message":"{}","timeout_ms":\#(timeout)}}"#)
                let answer = client.reply()
                #expect(answer?.contains("org.varlink.service.InvalidParameter") == true, "\(timeout): \(answer ?? "no answer")")
                #expect(answer?.contains("timeout_ms") == true)
            }
            try expectAlive(daemon)
        }

        @Test("malformed JSON and a message past the longest one close the connection unanswered; an unknown method is named")
        func malformedAndOversized() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let junk = try RawVarlinkClient(path: socketPath(daemon))
            junk.call(#"{"method": "io.intrapush.Daemon.Status""#)
            #expect(junk.readUntilClosed() == "", "closed after a message that is not a call: there is no call to answer")
            let long = try RawVarlinkClient(path: socketPath(daemon))
            long.send(String(repeating: "x", count: 8 << 20))
            #expect(long.readUntilClosed() == "", "closed once the message passed the longest one")
            let unknown = try RawVarlinkClient(path: socketPath(daemon))
            unknown.call(#"{"method":"io.intrapush.Daemon.Shutdown"}"#)
            #expect(unknown.reply()?.contains("org.varlink.service.MethodNotFound") == true)
            unknown.call(#"{"method":"com.example.Nothing"}"#)
            #expect(unknown.reply()?.contains("org.varlink.service.InterfaceNotFound") == true)
            try expectAlive(daemon)
        }

        @Test("a parameter claiming another uid is no parameter at all: refused by name; the kernel's word counts")
        func claimedIdentityIgnored() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let client = try RawVarlinkClient(path: socketPath(daemon))
            client.call(#"{"method":"io.intrapush.Daemon.WhoAmI","parameters":{"uid":1000,"user":"alice"}}"#)
            let refused = try #require(client.reply())
            #expect(refused == #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"uid"}}"#)
            client.call(#"{"method":"io.intrapush.Daemon.WhoAmI"}"#)
            let answer = try #require(client.reply())
            #expect(answer.contains(#""uid":\#(getuid())"#), "\(answer)")
            #expect(!answer.contains("alice"))
        }

        @Test("pipelined calls are answered in order on one connection")
        func pipelined() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let client = try RawVarlinkClient(path: socketPath(daemon))
            client.send(String(repeating: #"{"method":"org.varlink.service.GetInfo"}"# + "\u{0}", count: 10))
            for _ in 0..<10 { #expect(client.reply()?.contains(#""product":"intrapushd""#) == true) }
            try expectAlive(daemon)
        }

        @Test("an idle connection is closed after the deadline")
        func idleDeadline() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let idle = try RawVarlinkClient(path: socketPath(daemon))
            // The daemon closes it (readUntilClosed returns), it does not keep it forever.
            #expect(idle.readUntilClosed(timeout: .seconds(30)) == "")
            try expectAlive(daemon)
        }

        @Test("a subscriber that stops reading is dropped, not buffered; it resumes from its last id")
        func stalledSubscriberDropped() async throws {
            let (_, _, server, daemon) = try await startConnected()
            let stalled = try RawVarlinkClient(path: socketPath(daemon))
            stalled.call(#"{"method":"io.intrapush.Notifications.Subscribe","parameters":{},"more":true}"#)
            // Far more than the socket's buffers hold, so that rows wait for a reader who never comes.
            let total = 3000
            _ = try await server.client.burst(count: total, size: 2000, prefix: "s-")
            try await server.waitFor("every push acknowledged") { $0.acked == total }
            #expect(stalled.waitForHangUp(timeout: .seconds(60)), "the daemon closes a subscriber that reads nothing")
            let received = try #require(stalled.readUntilClosed(timeout: .seconds(5)))
            // Complete replies only: the one being written when it was closed may be cut short.
            let ids = received.split(separator: "\u{0}", omittingEmptySubsequences: false).dropLast().map(notificationID)
            #expect(ids.count < total, "dropped with rows left, not all of them held for it")
            #expect(ids == Array(1...ids.count).map(Optional.some), "the rows it read, in order")
            let lastID = try #require(ids.last ?? nil)
            // Calling again from the last id it read gives the rest, in order.
            let resumed = try RawVarlinkClient(path: socketPath(daemon))
            resumed.call(#"{"method":"io.intrapush.Notifications.Subscribe","parameters":{"after_id":\#(lastID)},"more":true}"#)
            #expect(resumed.reply().flatMap { notificationID($0[...]) } == lastID + 1)
            try expectAlive(daemon)
        }

        @Test("a mark-read list that is not ids is refused; a long valid list is marked")
        func markReadLists() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let junk = try RawVarlinkClient(path: socketPath(daemon))
            junk.call(#"{"method":"io.intrapush.Notifications.MarkRead","parameters":{"ids":[1,"x",2.5]}}"#)
            #expect(junk.reply()?.contains("org.varlink.service.InvalidParameter") == true)
            let ids = (1...100_000).map(String.init).joined(separator: ",")
            let long = try RawVarlinkClient(path: socketPath(daemon))
            long.call(#"{"method":"io.intrapush.Notifications.MarkRead","parameters":{"ids":[\#(ids)]}}"#)
            let answer = long.reply()
            #expect(answer?.contains(#""marked":"#) == true, "\(answer?.prefix(80) ?? "no answer")")
            try expectAlive(daemon)
        }
    }
}
