// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    /// The metrics as Prometheus reads them: fetched with curl, checked with promtool (Debian's
    /// `prometheus` package), compared with what happened.
    @Suite("Metrics: GET /metrics and metrics_file")
    struct MetricsTests {
        @Test("GET /metrics counts what happened, passes promtool check metrics, never shows the token; the file says stopped at the end")
        func scrape() async throws {
            let directory = try TemporaryDirectory("it")
            let port = try freeTCPPort()
            let file = directory.file("intrapush.prom")
            let (_, token, server, daemon) = try await startConnected(
                extra: ["metrics_listen": "\"127.0.0.1:\(port)\"", "metrics_file": "\"\(file)\""], in: directory)
            for id in ["m-1", "m-1", "m-2"] {
                _ = try await server.client.push(#"{"id":"\#(id)","title":"Metrics"}"#)
            }
            try await server.waitFor("three acknowledgements") { $0.acked == 3 }

            let url = "http://127.0.0.1:\(port)/metrics"
            let text = try await shell("curl -sS --fail \(url)", in: directory)
            for line in [
                "intrapush_connected 1.0", "intrapush_pushes_received_total 3", "intrapush_pushes_stored_total 2",
                "intrapush_pushes_duplicates_total 1", "intrapush_pushes_acknowledged_total 3",
                "intrapush_push_ack_latency_seconds_count 3", "intrapush_notifications 2.0",
                #"intrapush_push_stage_seconds_count{stage="to_store"} 3"#, #"intrapush_push_stage_seconds_count{stage="commit"} 3"#,
                #"intrapush_push_stage_seconds_count{stage="to_ack"} 3"#,
                "intrapush_connections_total 1", #"intrapush_state{state="connected"} 1.0"#,
                #"intrapush_reconnects_total{reason="closed_by_server"} 0"#,
            ] {
                #expect(text.split(separator: "\n").contains(Substring(line)), "\(line) in:\n\(text)")
            }
            #expect(!text.contains(token))
            let lint = try await shell("curl -sS --fail \(url) | \(try promtool()) check metrics 2>&1", in: directory)
            #expect(lint.isEmpty, "promtool check metrics: \(lint)")

            #expect(try await shell("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:\(port)/other", in: directory) == "404")
            #expect(try await shell("curl -s -o /dev/null -w '%{http_code}' -X POST \(url)", in: directory) == "405")
            #expect(FileManager.default.fileExists(atPath: file), "metrics_file written at the first turn")

            // Disconnected: still served, and the reason counted.
            try await server.stop()
            try await eventually("the lost connection counted") {
                let text = try await shell("curl -sS --fail \(url)", in: directory)
                return text.contains(#"intrapush_reconnects_total{reason="closed_by_server"} 1"#) && text.contains("intrapush_connected 0.0")
            }

            daemon.process.signal(SIGTERM)
            #expect(try await daemon.process.waitForExit(timeout: .seconds(5)) == 0)
            let last = try String(contentsOfFile: file, encoding: .utf8)
            #expect(last.contains(#"intrapush_state{state="stopped"} 1.0"#) && last.contains("intrapush_connected 0.0"), "\(last)")
            #expect(!last.contains(token))
            let fileLint = try await shell("\(try promtool()) check metrics < \(file) 2>&1", in: directory)
            #expect(fileLint.isEmpty, "promtool on metrics_file: \(fileLint)")
        }

        @Test("a metrics_listen port already in use: exit 71, naming the key and the reason")
        func portInUse() async throws {
            let directory = try TemporaryDirectory("it")
            let holder = try SilentListener()
            let daemon = try DaemonHandle(
                directory: directory, serverPort: 9, token: makeToken(),
                extra: ["metrics_listen": "\"127.0.0.1:\(holder.port)\""])
            #expect(try await daemon.process.waitForExit(timeout: .seconds(10)) == 71)
            #expect(daemon.log.contains("cannot listen on metrics_listen 127.0.0.1:\(holder.port): Address already in use"), "\(daemon.log)")
            _ = holder
        }
    }
}
