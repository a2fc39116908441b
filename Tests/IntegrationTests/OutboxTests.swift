// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
@testable import IntrapushInterface
import IntrapushStore
import Testing

/// Messages to the server (contract §7) through the real CLI, daemon and devserver.
extension Integration {
    @Suite("Outbox: messages, requests and read receipts to the server")
    struct OutboxTests {
        static let hello = #"{"id":"hello","type":"login"}"#

        func send(_ json: String, _ directory: TemporaryDirectory, _ daemon: DaemonHandle, _ extra: [String] = []) async throws -> CLIResult {
            try await runCLI(["send", "--database", daemon.databasePath] + extra + [json], directory: directory)
        }

        @Test("send: stored, then sent after hello_text on every connection, in queue order, also what waited while disconnected")
        func sendAfterHelloInOrder() async throws {
            // The server knows the hello: it must be the first frame of each connection (another
            // one is refused with 1008), and, though it has an id, it is no message.
            let (directory, _, server, daemon) = try await startConnected(
                extra: ["hello_text": "'\(Self.hello)'"], serverArguments: ["--hello-text", Self.hello], verifyingDatabase: true)
            let first = try await send(#"{"id":"m1","n":1}"#, directory, daemon)
            #expect(first.status == 0)
            #expect(first.stdout == "m1\n")
            let generated = try await send(#"{"n":2}"#, directory, daemon)
            let generatedID = String(generated.stdout.dropLast())
            #expect(generatedID.count == 36, "a UUID is added when the message has no id")
            try await eventually("both messages to reach the server") { try await server.client.upstream().count >= 2 }

            // Cut the connection and queue while it is down: they go out after the next hello.
            try await server.client.control("reject?status=403")
            try await server.client.control("drop")
            try await server.waitFor("the daemon to be refused") { $0.upgradesRejected >= 1 && $0.connectionsOpen == 0 }
            for n in 3...5 { #expect(try await send(#"{"id":"m\#(n)"}"#, directory, daemon).status == 0) }
            try await server.client.control("reject?status=0")
            try await eventually("the messages queued while disconnected to arrive") {
                try await server.client.upstream().messages.contains { $0.id == "m5" }
            }
            let report = try await server.client.upstream()
            #expect(report.messages.allSatisfy { $0.committed }, "no message arrived before its row was committed")
            #expect(!report.messages.contains { $0.id == "hello" }, "the hello is no message")
            let stats = try await server.stats()
            #expect(stats.hellos == 2 && stats.hellosRefused == 0, "hello_text is the first frame of every connection")
            #expect(Dictionary(grouping: report.messages, by: \.connection).count == 2)
            let ids = report.messages.map(\.id)
            #expect(Array(ids.prefix(2)) == ["m1", generatedID])
            #expect(Array(ids.suffix(3)) == ["m3", "m4", "m5"])
            let reader = DaemonDatabase(path: daemon.databasePath)
            try await eventually("every message to be recorded delivered") {
                try reader.integer("SELECT count(*) FROM outbox WHERE state = 'delivered'") == 5
            }
            let outbox = try await runCLI(["outbox", "--database", daemon.databasePath, "--json"], directory: directory)
            #expect(outbox.lines.count == 5)
            #expect(outbox.lines.first?.contains(#""message_id":"m5","kind":"message","state":"delivered","attempts":1"#) == true)
        }

        @Test("unacknowledged messages go again, in order, after a reconnect and after SIGKILL and restart")
        func redeliveryUntilAcknowledged() async throws {
            let (directory, _, server, daemon) = try await startConnected(verifyingDatabase: true)
            try await server.client.upstreamControl("acks?withhold=1")
            for n in 1...3 { #expect(try await send(#"{"id":"w\#(n)"}"#, directory, daemon).status == 0) }
            try await eventually("three messages to arrive once") { try await server.client.upstream().count == 3 }
            let duplicate = try await send(#"{"id":"w2"}"#, directory, daemon)
            #expect(duplicate.status == 75, "an id that still waits is refused")
            #expect(duplicate.stderr.contains("still waiting"))

            try await server.client.control("drop")
            try await eventually("all three sent again on the next connection") { try await server.client.upstream().count == 6 }
            // The record of a write follows the write: wait for it, or the kill may take it along.
            let reader = DaemonDatabase(path: daemon.databasePath)
            try await eventually("the second attempts recorded") { try reader.integer("SELECT min(attempts) FROM outbox") == 2 }
            daemon.process.signal(SIGKILL)
            #expect(try await daemon.process.waitForExit() == 128 + SIGKILL)
            try await server.client.upstreamControl("acks?withhold=0")
            let restarted = try DaemonHandle(restarting: daemon, directory: directory, name: "intrapushd2")
            try await eventually("the restarted daemon to send them again") { try await server.client.upstream().count == 9 }
            let report = try await server.client.upstream()
            for (_, messages) in Dictionary(grouping: report.messages, by: \.connection) {
                #expect(messages.map(\.id) == ["w1", "w2", "w3"], "each connection sends what waits, in queue order")
            }
            try await eventually("all delivered") { try reader.integer("SELECT count(*) FROM outbox WHERE state = 'delivered'") == 3 }
            #expect(try reader.integer("SELECT min(attempts) FROM outbox") == 3)
            _ = restarted
        }

        @Test("queued while the daemon is stopped (written by the CLI itself) and delivered once it starts")
        func queuedWhileStopped() async throws {
            let (directory, _, server, daemon) = try await startConnected(verifyingDatabase: true)
            daemon.process.signal(SIGTERM)
            #expect(try await daemon.process.waitForExit() == 0)
            #expect(!FileManager.default.fileExists(atPath: daemon.databasePath + ".sock"), "the local API's socket goes with the daemon")
            let queued = try await send(#"{"id":"offline-1"}"#, directory, daemon)
            #expect(queued.status == 0)
            #expect(queued.stderr.contains("intrapushd is not running; the message is stored"))
            let restarted = try DaemonHandle(restarting: daemon, directory: directory, name: "intrapushd2")
            try await eventually("the message to arrive after the start") {
                try await server.client.upstream().messages.contains { $0.id == "offline-1" }
            }
            _ = restarted
        }

        @Test("bad input: not an object 65, larger than max_message_size 65, nothing queued")
        func badInput() async throws {
            let (directory, _, _, daemon) = try await startConnected(extra: ["max_message_size": "2048"])
            for bad in ["[1,2]", "\"text\"", "{\"a\":", #"{"id":5}"#] {
                let result = try await send(bad, directory, daemon)
                #expect(result.status == 65, "\(bad)")
            }
            let big = #"{"blob":""# + String(repeating: "x", count: 3000) + #""}"#
            let viaArgument = try await send(big, directory, daemon)
            #expect(viaArgument.status == 65)
            #expect(viaArgument.stderr.contains("more than max_message_size"))
            #expect(try DaemonDatabase(path: daemon.databasePath).integer("SELECT count(*) FROM outbox") == 0)
        }

        @Test("request: answered (echo), timed out (75, expired), a reply after a reconnect; a reply to no request is a push")
        func requests() async throws {
            let (directory, _, server, daemon) = try await startConnected(verifyingDatabase: true)
            try await server.client.upstreamControl("echo?on=1")
            let answered = try await runCLI(
                ["request", "--database", daemon.databasePath, #"{"id":"q1","op":"time"}"#], directory: directory)
            #expect(answered.status == 0)
            #expect(answered.stdout == #"{"id":"q1","echo":{"id":"q1","op":"time"}}"# + "\n")
            try await server.client.upstreamControl("echo?on=0")

            let timedOut = try await runCLI(
                ["request", "--database", daemon.databasePath, "--timeout", "300ms", #"{"id":"q2"}"#], directory: directory)
            #expect(timedOut.status == 75)
            #expect(timedOut.stderr.contains("no reply to request q2"))
            let reader = DaemonDatabase(path: daemon.databasePath)
            #expect(try reader.strings("SELECT state FROM outbox WHERE message_id = 'q2'") == ["expired"])

            // The reply comes on another connection than the request went out on.
            let waiting = try ManagedProcess(
                Binaries.path("intrapush"), ["request", "--database", daemon.databasePath, "--timeout", "20s", #"{"id":"q3"}"#],
                directory: directory, name: "request-q3")
            try await eventually("q3 to reach the server") { try await server.client.upstream().messages.contains { $0.id == "q3" } }
            try await server.client.control("drop")
            try await server.waitFor("the daemon to reconnect") { $0.connectionsTotal >= 2 && $0.connectionsOpen == 1 }
            try await server.client.upstreamControl("reply?to=q3", body: #"{"answer":42}"#)
            #expect(try await waiting.waitForExit() == 0)
            #expect(waiting.stdout == #"{"id":"q3","reply":{"answer":42}}"# + "\n")
            #expect(try reader.integer("SELECT count(*) FROM notifications WHERE message_id = 'q3'") == 0, "a reply is not a notification")

            // An acknowledgement repeated, or for a message no longer in flight: never a push.
            _ = try await server.client.push("received message q3")
            _ = try await server.client.push("received message never-sent")
            _ = try await server.client.push(#"{"id":"q-unknown","title":"not a reply"}"#)
            try await eventually("a frame naming no waiting request to be stored as a push") {
                try reader.integer("SELECT count(*) FROM notifications WHERE message_id = 'q-unknown'") == 1
            }
            #expect(try reader.integer("SELECT count(*) FROM notifications WHERE payload LIKE 'received message %'") == 0,
                    "a late or repeated acknowledgement of ours is not stored as a notification")
            #expect(try await server.stats().acksBeforeCommit == 0)
        }

        @Test("read receipts: mark-read ID and mark-read --all each queue one per notification with a message id")
        func readReceipts() async throws {
            let (directory, _, server, daemon) = try await startConnected(
                extra: ["read_receipt_text": #"'{"type":"read","id":"r-{message_id}","at":{read_at}}'"#])
            for id in ["n1", "n2"] { _ = try await server.client.push(#"{"id":"\#(id)","title":"t"}"#) }
            _ = try await server.client.push("no id")
            try await server.waitFor("three pushes acknowledged") { $0.acked == 3 }
            let one = try await runCLI(["mark-read", "--database", daemon.databasePath, "1"], directory: directory)
            #expect(one.status == 0)
            #expect(one.stdout == "marked 1 notification read; 1 read receipt queued\n")
            let all = try await runCLI(["mark-read", "--database", daemon.databasePath, "--all"], directory: directory)
            #expect(all.stdout == "marked 2 notifications read; 1 read receipt queued\n")
            try await eventually("two receipts at the server") { try await server.client.upstream().count == 2 }
            let receipts = try await server.client.upstream().messages
            #expect(receipts.map(\.id) == ["r-n1", "r-n2"])
            #expect(receipts[0].payload.hasPrefix(#"{"type":"read","id":"r-n1","at":1"#))
        }

        @Test("a full disk: the message is not acknowledged to the caller (74), nothing is queued, the daemon goes on",
              .enabled(if: TinyFilesystem.isAvailable))
        func diskFull() async throws {
            let directory = try TemporaryDirectory("it")
            let disk = try TinyFilesystem(at: directory.file("disk"), kilobytes: 512)
            defer { disk.unmount() }
            let database = disk.path + "/n.sqlite3"
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            let daemon = try DaemonHandle(
                directory: directory, serverPort: server.port, token: token, extra: ["database": "\"\(database)\""])
            try await server.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            let filler = try disk.fill()
            let refused = try await runCLI(["send", "--database", database, #"{"id":"full-1","pad":"\#(String(repeating: "p", count: 20_000))"}"#], directory: directory)
            #expect(refused.status == 74)
            #expect(refused.stderr.contains("disk is full"))
            #expect(daemon.process.isRunning)
            try FileManager.default.removeItem(atPath: filler)
            let accepted = try await runCLI(["send", "--database", database, #"{"id":"full-1"}"#], directory: directory)
            #expect(accepted.status == 0, "the same id may be sent again: the first was never queued")
            try await eventually("it to arrive") { try await server.client.upstream().messages.contains { $0.id == "full-1" } }
            #expect(try await server.client.upstream().count == 1)
        }
    }
}

/// A small tmpfs for disk-full tests; needs root (mount).
struct TinyFilesystem {
    let path: String

    static var isAvailable: Bool {
        guard getuid() == 0 else { return false }
        let probe = NSTemporaryDirectory() + "intrapush-mount-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard run(["/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]) == 0 else { return false }
        _ = run(["/bin/umount", probe])
        return true
    }

    init(at path: String, kilobytes: Int) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run(["/bin/mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Fills what is left with a file; returns its path.
    func fill() throws -> String {
        let filler = path + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        let chunk = Data(repeating: 0, count: 4096)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        try? handle.close()
        return filler
    }

    func unmount() {
        _ = Self.run(["/bin/umount", "-l", path])
    }

    @discardableResult
    static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
