// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushSupport
import Testing

extension Integration {
    @Suite("on_notification: one run per stored notification, never in the way of acknowledgements")
    struct HookTests {
        /// A hook that writes its stdin and its INTRAPUSH_* variables to files named after the row id.
        /// Run as `/bin/sh SCRIPT`: a child spawned meanwhile by a parallel test could still hold
        /// a freshly written executable open, and executing it would fail with ETXTBSY.
        static func recordingHook(in directory: TemporaryDirectory, output: String) throws -> String {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let script = try directory.write("record-hook.sh", """
                #!/bin/sh
                out="$1"
                cat > "$out/$INTRAPUSH_ID.json.tmp"
                printf '%s\\n%s\\n%s\\n%s\\n' "$INTRAPUSH_ID" "$INTRAPUSH_MESSAGE_ID" "$INTRAPUSH_TITLE" "$INTRAPUSH_BODY" > "$out/$INTRAPUSH_ID.env"
                mv "$out/$INTRAPUSH_ID.json.tmp" "$out/$INTRAPUSH_ID.json"

                """)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
            return script
        }

        static func statusJSON(_ directory: TemporaryDirectory, _ daemon: DaemonHandle) async throws -> [String: Any] {
            let result = try await runCLI(["status", "--json", "--config", daemon.configPath], directory: directory)
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        }

        static func hookCounter(_ status: [String: Any], _ key: String) -> Int {
            (status["hook"] as? [String: Any])?[key] as? Int ?? -1
        }

        @Test("the hook gets the notification as JSON on stdin and in INTRAPUSH_*; message content runs nothing")
        func environmentAndStandardInput() async throws {
            let directory = try TemporaryDirectory("it")
            let output = directory.file("hook-out")
            let script = try Self.recordingHook(in: directory, output: output)
            let (_, _, server, daemon) = try await startConnected(
                extra: ["on_notification": "\"/bin/sh \(script) \(output)\""], in: directory)

            let title = "$(touch pwned); `touch pwned2` && touch pwned3 | ; ' \\\""
            let payload = try String(decoding: JSONSerialization.data(withJSONObject: [
                "id": "m-1", "title": title, "body": "body; $(id) > x",
            ]), as: UTF8.self)
            _ = try await server.client.push(payload)
            _ = try await server.client.push(payload)  // a duplicate: acknowledged, not stored, no run
            _ = try await server.client.push("plain text, no id")
            try await server.waitFor("three acknowledgements") { $0.acked == 3 }
            try await eventually("two hook runs to finish") {
                FileManager.default.fileExists(atPath: "\(output)/1.json") && FileManager.default.fileExists(atPath: "\(output)/2.json")
            }

            let first = try #require(
                JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(output)/1.json"))) as? [String: Any])
            #expect(first["id"] as? Int == 1)
            #expect(first["message_id"] as? String == "m-1")
            #expect(first["title"] as? String == title)
            #expect(first["body"] as? String == "body; $(id) > x")
            #expect(first["payload"] as? String == payload)
            #expect(first["read_at"] is NSNull)
            #expect(try String(contentsOfFile: "\(output)/1.env", encoding: .utf8) == "1\nm-1\n\(title)\nbody; $(id) > x\n")
            #expect(try String(contentsOfFile: "\(output)/2.env", encoding: .utf8) == "2\n\n\n\n", "absent fields are empty")

            let everywhere = [directory.path, output, FileManager.default.currentDirectoryPath, "/"]
            for place in everywhere {
                for name in ["pwned", "pwned2", "pwned3"] {
                    #expect(!FileManager.default.fileExists(atPath: "\(place)/\(name)"), "\(place)/\(name) was created")
                }
            }
            try await eventually("status to count two successful runs") {
                let status = try await Self.statusJSON(directory, daemon)
                return Self.hookCounter(status, "runs") == 2 && Self.hookCounter(status, "failures") == 0
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.hasSuffix(".json") }.count == 2,
                    "the duplicate ran no hook")
        }

        @Test("hooks that never end by themselves delay no acknowledgement; stopping kills them within the grace period")
        func slowHookDoesNotDelayAcknowledgements() async throws {
            // Each hook waits until it can take a ticket the test lays down: no time is judged. An
            // acknowledgement that waited for a hook would never come; a stop that waited for its
            // hooks would last until their 30 s timeout, six grace periods.
            let gate = try TemporaryDirectory("hook-gate")
            let hook = "/bin/sh -c 'while :; do for t in \(gate.path)/ticket-*; do /bin/rm $t 2>/dev/null && exit 0; done; /bin/sleep 0.05; done'"
            let (directory, _, server, daemon) = try await startConnected(extra: ["on_notification": "\"\(hook)\""])
            _ = try await server.client.burst(count: 50, size: 200, prefix: "slow-")
            try await server.waitFor("50 acknowledgements while every hook waits", timeout: .seconds(60)) { $0.acked == 50 }
            try await eventually("the first 4 hooks to start") {
                Self.hookCounter(try await Self.statusJSON(directory, daemon), "runs") >= 4
            }
            // One more push through the loop, then still 4: no more started while none finished.
            _ = try await server.client.burst(count: 1, size: 200, prefix: "later-")
            try await server.waitFor("the 51st acknowledgement", timeout: .seconds(60)) { $0.acked == 51 }
            let early = try await Self.statusJSON(directory, daemon)
            #expect(Self.hookCounter(early, "runs") == 4, "4 hooks at once, none finished")

            // Four tickets: the first four end, four more start and wait, the rest stay queued.
            for ticket in 1...4 { FileManager.default.createFile(atPath: gate.file("ticket-\(ticket)"), contents: nil) }
            try await eventually(timeout: .seconds(30), "the second wave of hooks to start") {
                Self.hookCounter(try await Self.statusJSON(directory, daemon), "runs") >= 8
            }
            let stopping = ContinuousClock.now
            daemon.process.signal(SIGTERM)
            #expect(try await daemon.process.waitForExit(timeout: .seconds(60)) == 0)
            #expect(ContinuousClock.now - stopping < .seconds(25), "the daemon waits for its hooks only for the grace period")
            #expect(daemon.log.contains("hook killed: the daemon is stopping"))
            #expect(daemon.log.contains("waiting hook runs dropped: shutting down"))
            let final = try await Self.statusJSON(directory, daemon)
            #expect(Self.hookCounter(final, "runs") >= 8)
            #expect(Self.hookCounter(final, "dropped") > 0, "the stop's drops reach the final live state")
        }

        @Test("a reload that changes on_notification takes effect for the next notification; removing it stops hooks")
        func reloadReplacesTheHook() async throws {
            let directory = try TemporaryDirectory("it")
            let first = directory.file("first")
            let second = directory.file("second")
            let script = try Self.recordingHook(in: directory, output: first)
            try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
            let (_, _, server, daemon) = try await startConnected(
                extra: ["on_notification": "\"/bin/sh \(script) \(first)\""], in: directory)
            _ = try await server.client.push(#"{"id":"a"}"#)
            try await eventually("the first hook's run") { FileManager.default.fileExists(atPath: "\(first)/1.json") }

            let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
            try config.replacing(first, with: second).write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            daemon.process.signal(SIGHUP)
            try await eventually("the reload") { daemon.log.contains("on_notification now runs") }
            _ = try await server.client.push(#"{"id":"b"}"#)
            try await eventually("the new hook's run") { FileManager.default.fileExists(atPath: "\(second)/2.json") }
            #expect(!FileManager.default.fileExists(atPath: "\(first)/2.json"))
            let afterReload = try await server.stats()
            #expect(afterReload.connectionsTotal == 1, "the connection is kept")

            try config.split(separator: "\n").filter { !$0.hasPrefix("on_notification") }.joined(separator: "\n")
                .appending("\n").write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            daemon.process.signal(SIGHUP)
            try await eventually("the second reload") { daemon.log.contains("on_notification removed") }
            _ = try await server.client.push(#"{"id":"c"}"#)
            try await server.waitFor("three acknowledgements") { $0.acked == 3 }
            // Two heartbeats later a run would have started and been counted.
            let heartbeats = try await server.stats().heartbeats
            try await server.waitFor("two more heartbeats") { $0.heartbeats >= heartbeats + 2 }
            #expect(Self.hookCounter(try await Self.statusJSON(directory, daemon), "runs") == 2, "counts of both runners, none for c")
            #expect(!FileManager.default.fileExists(atPath: "\(first)/3.json") && !FileManager.default.fileExists(atPath: "\(second)/3.json"))
        }
    }
}
