// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushStore
import Testing

extension Integration {
    /// A oneway call is a promise: nobody hears if it is dropped. Marks pipelined on fresh
    /// connections, as fast as the socket takes them, are every one made.
    @Suite("Oneway marks")
    struct OnewayMarksTests {
        @Test("3,000 pipelined oneway marks on a fresh connection, then on 16 of one person at once: every mark is made")
        func everyMarkMade() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            let database = directory.file(DaemonHandle.databaseName)
            let rows = 6000
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            _ = try NotificationStore(path: database).store((1...rows).map {
                Push(payload: .text(#"{"id":"m-\#($0)"}"#), messageID: "m-\($0)", title: "t\($0)", body: nil, receivedAt: now - Int64(rows - $0))
            }, liveState: nil)
            let daemon = try DaemonHandle(directory: directory, serverPort: server.port, token: token)
            try await server.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            let socket = database + ".sock"
            let reader = DaemonDatabase(path: database)
            let marked = "SELECT count(*) FROM notification_reads WHERE reader = \(getuid())"

            // One connection: 3,000 marks in one write, then one that waits for its answer:
            // a person's marks are made in order, so it is answered after all of them.
            try markOneway(ids: Array(1...3000), connections: 1, socket: socket)
            #expect(try reader.integer(marked) == 3000, "every oneway mark of one connection made")

            try markOneway(ids: Array(3001...6000), connections: 16, socket: socket)
            #expect(try reader.integer(marked) == 6000, "every oneway mark of sixteen connections made")
            _ = daemon
        }

        /// Pipelines one oneway `MarkRead` per id, split between `connections` fresh
        /// connections, then on each a last mark that is answered.
        func markOneway(ids: [Int], connections count: Int, socket: String) throws {
            let clients = try (0..<count).map { _ in try RawVarlinkClient(path: socket) }
            let shares = (0..<count).map { index in stride(from: index, to: ids.count, by: count).map { ids[$0] } }
            for (client, share) in zip(clients, shares) {
                client.send(share.dropLast().map {
                    #"{"method":"io.intrapush.Notifications.MarkRead","parameters":{"ids":[\#($0)]},"oneway":true}"# + "\u{0}"
                }.joined())
            }
            for (client, share) in zip(clients, shares) {
                client.call(#"{"method":"io.intrapush.Notifications.MarkRead","parameters":{"ids":[\#(share.last!)]}}"#)
                let answer = client.reply(timeout: .seconds(120))
                #expect(answer?.contains("\"marked\":1") == true, "the last mark is answered: \(answer ?? "nothing")")
            }
        }
    }
}
