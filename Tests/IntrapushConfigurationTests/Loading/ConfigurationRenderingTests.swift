// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Configuration rendering and secrecy")
struct ConfigurationRenderingTests {
    @Test("every key is rendered, durations with units, the token as ***")
    func everyKey() throws {
        let fixture = try ConfigurationFixture()
        let rendered = try fixture.load(
            ConfigurationFixture.minimal(#"heartbeat_interval = "250ms""#, #"on_notification = "say \"hi\"""#)
        ).configuration.rendered()
        let lines = rendered.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"host = "push.corp:8080""#))
        #expect(lines.contains(#"token = "***""#))
        #expect(lines.contains("# token from token_file \(fixture.directory)/token (from CREDENTIALS_DIRECTORY)"))
        #expect(lines.contains(#"heartbeat_interval = "250ms""#))
        #expect(lines.contains(#"dead_peer_timeout = "750ms""#))
        #expect(lines.contains(#"reconnect_max = "60s""#))
        #expect(lines.contains("max_message_size = 1048576"))
        #expect(lines.contains("tls = true"), "wss to a server off this machine, by default")
        #expect(lines.contains(#"on_notification = "say \"hi\"""#))
        #expect(lines.contains(#"log_level = "info""#))
        let keys = Set(lines.filter { !$0.hasPrefix("#") }.map { String($0.prefix { $0 != " " }) })
        #expect(keys == [
            "host", "org", "client", "token", "tls", "path", "heartbeat_interval", "heartbeat_text", "ack_text",
            "id_field", "priority_field", "link_field", "recipients_field", "dead_peer_timeout", "connect_timeout", "reconnect_min", "reconnect_max", "max_message_size",
            "database", "retention_days", "retention_max_rows", "on_notification", "log_level",
            "upstream_id_field", "upstream_ack_text", "reply_to_field", "outbox_window", "outbox_ttl", "request_timeout",
            "readers",
        ])
        #expect(lines.contains(#"upstream_ack_text = "received message {id}""#))
        #expect(lines.contains(#"outbox_ttl = "7d""#))
        #expect(lines.contains("# read_receipt_text: unset"))
        #expect(lines.contains("# headers: none"))
        #expect(lines.contains("# subprotocol: unset"))
        #expect(lines.contains("# hello_text: unset"))
        #expect(lines.contains("# ca_file: the system trust store"))
        #expect(!rendered.contains(ConfigurationFixture.token))
    }

    @Test("the rendered configuration loads back to the same configuration")
    func roundTrip() throws {
        let fixture = try ConfigurationFixture()
        let original = try fixture.load(
            ConfigurationFixture.minimal(
                "tls = true", #"heartbeat_interval = 0.0005"#, #"reconnect_max = "2h""#, "retention_days = 3",
                #"ack_text = "ack\t{id}""#)
        ).configuration
        fixture.environment["INTRAPUSH_TOKEN"] = ConfigurationFixture.token
        var reloaded = try fixture.load(original.rendered()).configuration
        reloaded.tokenSource = original.tokenSource
        #expect(reloaded == original)
    }

    @Test("descriptions, debug descriptions and dumps of a configuration never show the token")
    func noTokenInReflection() throws {
        let fixture = try ConfigurationFixture()
        let configuration = try fixture.load(ConfigurationFixture.minimal()).configuration
        var dumped = ""
        dump(configuration, to: &dumped)
        var dumpedConnection = ""
        dump(configuration.connection, to: &dumpedConnection)
        for text in [String(describing: configuration), String(reflecting: configuration), dumped,
                     String(describing: configuration.connection), dumpedConnection,
                     "\(configuration.token)", String(reflecting: configuration.token)] {
            #expect(!text.contains(ConfigurationFixture.token))
        }
        #expect("\(configuration.token)" == "***")
        #expect(configuration.endpoint.redactedURL == "wss://push.corp:8080/connect/linux/acme/***")
    }

    @Test("the connection settings change with every connection key and with no other")
    func requiresReconnect() {
        let base = Configuration(host: "push.corp", org: "acme", token: Secret("t"))
        var unchanged = base
        unchanged.retentionDays = 1
        unchanged.retentionMaxRows = 5
        unchanged.logLevel = .debug
        unchanged.onNotification = "true"
        unchanged.database = "/elsewhere"
        unchanged.reconnectMin = .seconds(2)
        unchanged.reconnectMax = .seconds(90)
        unchanged.tokenSource = "INTRAPUSH_TOKEN"
        #expect(base.connection == unchanged.connection)

        let changes: [(inout Configuration) -> Void] = [
            { $0.host = "push.corp:81" }, { $0.org = "b" }, { $0.client = "c" }, { $0.token = Secret("u") },
            { $0.tls = true }, { $0.caFile = "/ca.pem" }, { $0.pathTemplate = "/x/{token}" },
            { $0.connectTimeout = .seconds(1) }, { $0.maxMessageSize = 2048 }, { $0.heartbeatInterval = .seconds(1) },
            { $0.heartbeatText = "hb" }, { $0.deadPeerTimeout = .seconds(99) }, { $0.ackText = "ok" },
            { $0.idField = "uuid" }, { $0.headers = [HandshakeHeader(name: "X-A", value: "1")] },
            { $0.subprotocol = "v2" }, { $0.helloText = "hi" },
        ]
        for change in changes {
            var changed = base
            change(&changed)
            #expect(base.connection != changed.connection)
        }
    }
}
