import Foundation
import Testing

/// The control socket under abuse by a group member (README "Limits"): every request is
/// answered or refused in words, nothing crashes the daemon, and nothing it holds grows
/// without bound.
extension Integration {
    @Suite("Control socket: limits and hostile requests")
    struct ControlSocketAbuseTests {
        func socketPath(_ daemon: DaemonHandle) -> String { daemon.databasePath + ".sock" }

        /// The daemon still answers an ordinary `status`.
        func expectAlive(_ daemon: DaemonHandle) throws {
            let answer = try RawControlClient(path: socketPath(daemon))
            answer.send("status - 0\n")
            #expect(answer.readUntilClosed()?.hasPrefix("0 ") == true, "the daemon answers status")
        }

        @Test("a request's timeout beyond any duration is refused in words, not a crash")
        func hugeRequestTimeout() async throws {
            let (_, _, _, daemon) = try await startConnected()
            for timeout in ["9223372036854775807", "99999999999999999999999", "0", "-5", "1e3"] {
                let client = try RawControlClient(path: socketPath(daemon))
                client.send("request \(timeout) 2\n{}")
                let answer = client.readUntilClosed()
                #expect(answer?.hasPrefix("64 ") == true, "\(timeout): \(answer ?? "no answer")")
                #expect(answer?.contains("timeout must be from 1 ms") == true)
            }
            try expectAlive(daemon)
        }

        @Test("a body larger than its verb may carry is refused from the header, before any of it is read")
        func oversizedBodies() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let send = try RawControlClient(path: socketPath(daemon))
            send.send("send - 67108864\n")
            let sendAnswer = send.readUntilClosed()
            #expect(sendAnswer?.hasPrefix("65 ") == true, "\(sendAnswer ?? "no answer")")
            #expect(sendAnswer?.contains("more than max_message_size") == true)
            let status = try RawControlClient(path: socketPath(daemon))
            status.send("status - 5\nhello")
            #expect(status.readUntilClosed()?.hasPrefix("64 ") == true)
            let unknown = try RawControlClient(path: socketPath(daemon))
            unknown.send("shutdown - 0\n")
            #expect(unknown.readUntilClosed()?.contains("unknown request shutdown") == true)
            try expectAlive(daemon)
        }

        @Test("one request per connection: pipelined requests get one answer, then the connection closes")
        func onePerConnection() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let client = try RawControlClient(path: socketPath(daemon))
            client.send(String(repeating: "status - 0\n", count: 10_000))
            let answer = try #require(client.readUntilClosed())
            #expect(answer.hasPrefix("0 "))
            let length = Int(answer.split(separator: "\n", maxSplits: 1)[0].split(separator: " ")[1]) ?? -1
            #expect(answer.utf8.count == answer.split(separator: "\n", maxSplits: 1)[0].utf8.count + 1 + length, "exactly one answer")
            try expectAlive(daemon)
        }

        @Test("connections beyond the cap are refused in words; an idle one is closed after the deadline")
        func connectionCapAndIdleDeadline() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let idle = try (0..<64).map { _ in try RawControlClient(path: socketPath(daemon)) }
            // Each has been accepted once a status on a further connection is refused.
            let extra = try RawControlClient(path: socketPath(daemon))
            extra.send("status - 0\n")
            let refused = extra.readUntilClosed()
            #expect(refused?.hasPrefix("75 ") == true, "\(refused ?? "no answer")")
            #expect(refused?.contains("control connections open already") == true)
            // The idle ones are closed by the daemon (readUntilClosed returns), not kept forever.
            let start = ContinuousClock.now
            #expect(idle[0].readUntilClosed(timeout: .seconds(30)) == "")
            #expect(ContinuousClock.now - start < .seconds(30))
            for client in idle.dropFirst() { #expect(client.readUntilClosed(timeout: .seconds(5)) != nil) }
            try expectAlive(daemon)
        }

        @Test("a mark-read list that is not ids is refused; a long valid list is marked")
        func markReadLists() async throws {
            let (_, _, _, daemon) = try await startConnected()
            let junk = try RawControlClient(path: socketPath(daemon))
            junk.send("mark-read - 7\n1 x 99x")
            #expect(junk.readUntilClosed()?.contains("expected notification ids or all") == true)
            let ids = (1...100_000).map(String.init).joined(separator: " ")
            let long = try RawControlClient(path: socketPath(daemon))
            long.send("mark-read - \(ids.utf8.count)\n\(ids)")
            let answer = long.readUntilClosed()
            #expect(answer?.hasPrefix("0 ") == true, "\(answer?.prefix(80) ?? "no answer")")
            try expectAlive(daemon)
        }
    }
}
