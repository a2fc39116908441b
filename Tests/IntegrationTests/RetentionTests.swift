// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
@testable import IntrapushInterface
import IntrapushStore
import Testing

extension Integration {
    @Suite("Retention: pruning while pushes keep coming")
    struct RetentionTests {
        /// A pass at start and after each reload, interleaved with the bursts' commits.
        @Test("retention_max_rows = 100: 300 pushes in bursts end as the newest 100, nothing else lost")
        func byCountWhilePushing() async throws {
            let (directory, _, server, daemon) = try await startConnected(
                extra: ["retention_max_rows": "100", "retention_days": "0"])
            for round in 0..<6 {
                _ = try await server.client.burst(count: 50, size: 200, prefix: "r\(round)-")
                // A pass while the burst is being stored (a reload asks for one).
                daemon.process.signal(SIGHUP)
                try await Task.sleep(for: .milliseconds(50))
            }
            try await server.waitFor("300 acknowledgements") { $0.acked == 300 }
            let reader = DaemonDatabase(path: daemon.databasePath)
            try await eventually("the passes to settle: what is left plus what was pruned is everything") {
                let left = try reader.integer("SELECT count(*) FROM notifications")
                let pruned = try reader.liveState()?.prunedTotal ?? 0
                return left + pruned == 300 && pruned > 0
            }
            #expect(try reader.integer("SELECT count(*) FROM notifications") <= 150, "at most the limit and one burst")
            #expect(daemon.log.contains("beyond the row limit"))

            // One more pass after the last burst: exactly the limit, the newest rows, in order.
            daemon.process.signal(SIGHUP)
            try await eventually("the last pass") {
                try reader.integer("SELECT count(*) FROM notifications") == 100
            }
            #expect(try reader.integer("SELECT max(id) FROM notifications") == 300)
            #expect(try reader.integer("SELECT max(id) - min(id) + 1 FROM notifications") == 100, "no gap: the oldest went")
            #expect(try reader.strings("SELECT message_id FROM notifications ORDER BY id").last == "r5-300", "the newest kept")
            #expect(try reader.liveState()?.storedTotal == 300)
            let status = try await runCLI(["status", "--json", "--config", daemon.configPath], directory: directory)
            let retention = try #require(
                (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["retention"] as? [String: Any])
            #expect(retention["pruned_total"] as? Int == 200)
            #expect(retention["max_rows"] as? Int == 100)
            #expect(retention["days"] as? Int == 0)
            #expect(retention["last_prune_at"] is String)
        }

        /// Rows older than retention_days go at start, before any push comes in.
        @Test("at start, rows older than retention_days are pruned and the pass is logged once")
        func byAgeAtStart() async throws {
            let (directory, token, server, daemon) = try await startConnected(extra: ["retention_days": "0"])
            _ = try await server.client.burst(count: 20, size: 100, prefix: "age-")
            try await server.waitFor("20 acknowledgements") { $0.acked == 20 }
            daemon.process.signal(SIGTERM)
            #expect(try await daemon.process.waitForExit() == 0)

            let writer = try SQLiteConnection(path: daemon.databasePath)
            try writer.execute("UPDATE notifications SET received_at = received_at - 10 * 86400000 WHERE id <= 12")
            let restarted = try DaemonHandle(
                directory: directory, serverPort: server.port, token: token,
                extra: ["retention_days": "5"], name: "restarted")
            let reader = DaemonDatabase(path: restarted.databasePath)
            try await eventually("the pass at start") { try reader.integer("SELECT count(*) FROM notifications") == 8 }
            #expect(try reader.integer("SELECT min(id) FROM notifications") == 13)
            try await eventually("the log line") {
                restarted.log.contains("pruned 12 notifications (12 older than the retention period) in 1 batch")
            }
            #expect(restarted.log.components(separatedBy: "pruned ").count == 2, "one line per pass")
            #expect(!restarted.log.contains("without incremental vacuum"), "a new database can shrink")
            try await eventually("the live state to carry the policy") {
                let state = try reader.liveState()
                return state?.retentionDays == 5 && state?.prunedTotal == 12 && state?.pid == restarted.process.pid
            }
        }

        @Test("a database created without incremental vacuum is named once at start, with the fix")
        func olderDatabaseNotice() async throws {
            let directory = try TemporaryDirectory("it")
            let database = directory.file(DaemonHandle.databaseName)
            // A file that already has a table keeps auto_vacuum = NONE, like one made before migration 3.
            try SQLiteConnection(path: database).execute("CREATE TABLE unrelated (x)")
            let (_, _, _, daemon) = try await startConnected(in: directory)
            #expect(daemon.log.components(separatedBy: "was created without incremental vacuum").count == 2)
            #expect(daemon.log.contains("PRAGMA auto_vacuum = INCREMENTAL; VACUUM"))
        }
    }
}
