// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@testable import IntrapushDaemonKit

@Suite("Configuration: metrics_listen and metrics_file")
struct ConfigurationMetricsTests {
    @Test(
        "metrics_listen takes an IP address (or localhost) and a port",
        arguments: [
            ("127.0.0.1:9464", "127.0.0.1", 9464), ("0.0.0.0:1", "0.0.0.0", 1), ("[::1]:9464", "::1", 9464),
            ("[::]:65535", "::", 65535), ("localhost:9464", "127.0.0.1", 9464),
        ])
    func goodAddresses(text: String, address: String, port: Int) throws {
        let fixture = try ConfigurationFixture()
        let configuration = try fixture.load(ConfigurationFixture.minimal("metrics_listen = \"\(text)\"")).configuration
        #expect(configuration.metricsListen == ListenAddress(address: address, port: port))
    }

    @Test(
        "a bad metrics_listen is refused, naming the key and saying what is expected",
        arguments: [
            ("127.0.0.1", "needs a port"), ("metrics.corp:9464", "expected an IP address"),
            ("127.0.0.1:0", "the port must be a number from 1 to 65535"), ("256.1.1.1:80", "expected an IP address"),
            ("::1:9464", "needs brackets"),
        ])
    func badAddresses(text: String, expected: String) throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("metrics_listen = \"\(text)\""))
        let problem = error.problem("metrics_listen")?.description ?? ""
        #expect(problem.hasPrefix("\(fixture.configurationPath):3: metrics_listen: "), "\(problem)")
        #expect(problem.contains(expected), "\(problem)")
    }

    @Test("metrics_file must be absolute and its directory must exist; empty is unset")
    func metricsFile() throws {
        let fixture = try ConfigurationFixture()
        let relative = fixture.problems(ConfigurationFixture.minimal(#"metrics_file = "intrapush.prom""#))
        #expect(relative.problem("metrics_file")?.description.contains("must be an absolute path") == true)
        let missing = fixture.problems(ConfigurationFixture.minimal(#"metrics_file = "/nonexistent/dir/intrapush.prom""#))
        #expect(missing.problem("metrics_file")?.description.contains("the directory /nonexistent/dir does not exist") == true)
        let path = fixture.directory + "/intrapush.prom"
        let good = try fixture.load(ConfigurationFixture.minimal("metrics_file = \"\(path)\"")).configuration
        #expect(good.metricsFile == path)
        #expect(try fixture.load(ConfigurationFixture.minimal(#"metrics_file = """#)).configuration.metricsFile == nil)
        // The CLI never writes it: no directory check when the CLI reads the file.
        let forCLI = try fixture.load(
            ConfigurationFixture.minimal(#"metrics_file = "/nonexistent/dir/intrapush.prom""#), purpose: .databaseOnly)
        #expect(forCLI.configuration.metricsFile == "/nonexistent/dir/intrapush.prom")
    }

    @Test("every disconnect reason has a label of the pre-registered set")
    func reasonLabels() {
        let reasons: [DisconnectReason] = [
            .unreachable("x"), .timedOut, .handshakeRejected(status: 401), .handshakeRejected(status: 503),
            .subprotocolMismatch(requested: "a", selected: nil), .closedByServer(code: 1001), .deadPeer,
            .messageTooLarge, .storeFailed("x"), .reconfigured, .shuttingDown, .error("x"), .clientCertificateRefused(sent: true),
        ]
        for reason in reasons { #expect(DisconnectReason.metricLabels.contains(reason.metricLabel), "\(reason)") }
        #expect(DisconnectReason.handshakeRejected(status: 403).metricLabel == "token_rejected")
    }
}
