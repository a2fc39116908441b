// SPDX-License-Identifier: Apache-2.0

import TestSupport
import CSQLite
import Foundation
import IntrapushDevServer
import Testing

@Suite("Commit verification and acknowledgement ids", .timeLimit(.minutes(1)))
struct CommitVerificationTests {
    /// Creates a database with the contract's `notifications` table holding `messageIDs`.
    private func makeDatabase(holding messageIDs: [String], in directory: TemporaryDirectory) throws -> URL {
        let url = URL(fileURLWithPath: directory.file())
        var database: OpaquePointer?
        #expect(sqlite3_open(url.path, &database) == SQLITE_OK)
        defer { sqlite3_close(database) }
        let values = messageIDs.map { "('\($0)', 0, '{}')" }.joined(separator: ",")
        let sql = """
            PRAGMA journal_mode=WAL;
            CREATE TABLE notifications(id INTEGER PRIMARY KEY, message_id TEXT UNIQUE,
                received_at INTEGER NOT NULL, payload TEXT NOT NULL);
            INSERT INTO notifications(message_id, received_at, payload) VALUES \(values);
            """
        #expect(sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK)
        return url
    }

    @Test("an acknowledgement whose message id is not yet in the database is counted as before commit")
    func acknowledgementBeforeCommit() async throws {
        let directory = try TemporaryDirectory("devserver")
        let database = try makeDatabase(holding: ["stored"], in: directory)
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        try await withDevServer({ $0.verifyDatabasePath = database.path }) { server, client in
            try await client.push(#"{"id":"stored"}"#)
            try await client.push(#"{"id":"missing"}"#)
            try await client.push("no id at all")
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                #expect(try await socket.sync().count == 3)
                for _ in 0..<3 {
                    try await socket.send(text: "received message")
                }
                try await socket.sync()
            }
            let stats = try await client.stats()
            #expect(stats.acked == 3)
            #expect(stats.acksBeforeCommit == 1)
        }
    }

    @Test("a database that does not exist yet counts every acknowledgement of a push with an id")
    func missingDatabase() async throws {
        let directory = try TemporaryDirectory("devserver")
        let path = directory.file("absent.sqlite3")
        try await withDevServer({ $0.verifyDatabasePath = path }) { server, client in
            try await client.push(#"{"id":"m1"}"#)
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                try await socket.sync()
                try await socket.send(text: "received message")
                try await socket.sync()
            }
            #expect(try await client.stats().acksBeforeCommit == 1)
        }
    }

    @Test("with an {id} ack template, an acknowledgement naming another push is a mismatch")
    func acknowledgementIdentifiers() async throws {
        try await withDevServer({ $0.acknowledgementTemplate = "ack {id}" }) { server, client in
            try await client.push(#"{"id":"m1"}"#)
            try await client.push(#"{"id":"m2"}"#)
            try await client.push("plain")
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                try await socket.sync()
                try await socket.send(text: "ack m1")
                try await socket.send(text: "ack m3")
                try await socket.send(text: "ack ")
                try await socket.send(text: "ack m4")  // nothing left to acknowledge
                try await socket.sync()
            }
            let stats = try await client.stats()
            #expect(stats.acks == 4)
            #expect(stats.acked == 3)
            #expect(stats.ackMismatches == 2)
        }
    }
}
