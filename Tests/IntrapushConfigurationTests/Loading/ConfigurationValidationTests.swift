// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing
@testable import IntrapushDaemonKit

@Suite("Configuration validation")
struct ConfigurationValidationTests {
    @Test("the contract's defaults apply to every key not given")
    func defaults() throws {
        let fixture = try ConfigurationFixture()
        let configuration = try fixture.load(ConfigurationFixture.minimal()).configuration
        #expect(configuration.host == "push.corp:8080")
        #expect(configuration.org == "acme")
        #expect(configuration.client == "linux")
        #expect(configuration.tls, "wss unless tls = false is written")
        #expect(configuration.caFile == nil)
        #expect(configuration.pathTemplate == "/connect/{client}/{org}/{token}")
        #expect(configuration.heartbeatInterval == .seconds(10))
        #expect(configuration.heartbeatText == "KA")
        #expect(configuration.ackText == "received message")
        #expect(configuration.idField == "id")
        #expect(configuration.deadPeerTimeout == .seconds(30))
        #expect(configuration.connectTimeout == .seconds(10))
        #expect(configuration.reconnectMin == .seconds(1))
        #expect(configuration.reconnectMax == .seconds(60))
        #expect(configuration.maxMessageSize == 1_048_576)
        #expect(configuration.database == "/var/lib/intrapush/notifications.sqlite3")
        #expect(configuration.retentionDays == 90)
        #expect(configuration.retentionMaxRows == 1_000_000)
        #expect(configuration.onNotification == nil)
        #expect(configuration.logLevel == .info)
    }

    @Test("every key is read from the file, durations in any form")
    func everyKey() throws {
        let fixture = try ConfigurationFixture()
        let caFile = try fixture.write("ca.pem", "-----BEGIN CERTIFICATE-----\n")
        let configuration = try fixture.load(
            ConfigurationFixture.minimal(
                #"client = "desk""#, "tls = true", #"ca_file = "\#(caFile)""#, #"path = "/ws/{org}/{token}""#,
                #"heartbeat_interval = "250ms""#, #"heartbeat_text = "ping""#, #"ack_text = "ok {id}""#,
                #"id_field = "uuid""#, "dead_peer_timeout = 1.5", #"connect_timeout = "5s""#,
                #"reconnect_min = "100ms""#, #"reconnect_max = "5min""#, #"max_message_size = "64KiB""#,
                #"database = "/tmp/x.sqlite3""#, "retention_days = 0", "retention_max_rows = 10",
                #"on_notification = "notify-send hi""#, #"log_level = "debug""#)
        ).configuration
        #expect(configuration.client == "desk")
        #expect(configuration.tls)
        #expect(configuration.caFile == caFile)
        #expect(configuration.pathTemplate == "/ws/{org}/{token}")
        #expect(configuration.heartbeatInterval == .milliseconds(250))
        #expect(configuration.heartbeatText == "ping")
        #expect(configuration.ackText == "ok {id}")
        #expect(configuration.idField == "uuid")
        #expect(configuration.deadPeerTimeout == .milliseconds(1500))
        #expect(configuration.connectTimeout == .seconds(5))
        #expect(configuration.reconnectMin == .milliseconds(100))
        #expect(configuration.reconnectMax == .seconds(300))
        #expect(configuration.maxMessageSize == 65536)
        #expect(configuration.database == "/tmp/x.sqlite3")
        #expect(configuration.retentionDays == 0)
        #expect(configuration.retentionMaxRows == 10)
        #expect(configuration.onNotification == "notify-send hi")
        #expect(configuration.logLevel == .debug)
    }

    @Test("dead_peer_timeout defaults to three heartbeat intervals")
    func deadPeerDefault() throws {
        let fixture = try ConfigurationFixture()
        let configuration = try fixture.load(ConfigurationFixture.minimal("heartbeat_interval = 2")).configuration
        #expect(configuration.deadPeerTimeout == .seconds(6))
    }

    @Test("a missing host or org is named, with the file, as required")
    func requiredKeys() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems("tls = false\n")
        #expect(error.problems.count == 2)
        let host = try #require(error.problem("host"))
        #expect(host.file == fixture.configurationPath)
        #expect(host.line == nil)
        #expect(host.description.hasPrefix("\(fixture.configurationPath): host: required"))
        #expect(host.message.contains("INTRAPUSH_HOST"))
        #expect(error.problem("org")?.message.hasPrefix("required") == true)
    }

    @Test("an empty org is refused at its line")
    func emptyOrg() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems("host = \"push.corp\"\norg = \"  \"\n")
        #expect(error.problem("org")?.description == "\(fixture.configurationPath):2: org: must not be empty (was \"  \")")
    }

    @Test(
        "a host that is not name[:port] is refused with the reason and the value",
        arguments: [
            ("ws://push.corp", "without a scheme"), ("push.corp/x", "without a path"), ("push corp", "white space"),
            ("push.corp:0", "from 1 to 65535"), ("push.corp:70000", "from 1 to 65535"),
            ("push.corp:http", "from 1 to 65535"), ("push.corp:", "from 1 to 65535"), ("2001:db8::1", "brackets"),
            ("[2001:db8::1", "closing bracket"), ("[2001:db8::1]8080", "[address]:port"), (":8080", "missing"),
            ("", "must not be empty"), ("püsh.corp", "punycode"), ("[zz::1]:80", "IPv6 address"),
        ])
    func badHost(host: String, reason: String) throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems("org = \"acme\"\nhost = \(host.debugDescription)\n")
        let problem = try #require(error.problem("host"))
        #expect(problem.line == 2)
        #expect(problem.message.contains(reason))
        #expect(problem.message.hasSuffix("(was \(host.debugDescription))"))
    }

    @Test("host names, IPv4 and bracketed IPv6, with or without a port, are accepted",
          arguments: ["push.corp", "push.corp:8080", "10.0.0.1:1", "[2001:db8::1]:65535", "[::1]", "push_1-a"])
    func goodHost(host: String) throws {
        let fixture = try ConfigurationFixture()
        let loaded = try fixture.load("org = \"acme\"\nhost = \(host.debugDescription)\n")
        #expect(loaded.configuration.host == host)
    }

    @Test("the contract's example of a bad duration, word for word")
    func badDuration() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal(#"heartbeat_interval = "10 parsecs""#))
        #expect(error.description == #"\#(fixture.configurationPath):3: heartbeat_interval: expected a duration like 10, "250ms", "10s", "5min", "1h" or "7d" (was "10 parsecs")"#)
    }

    @Test(
        "durations must be greater than zero",
        arguments: [("0", "0"), ("-1", "-1"), ("-0.5", "-0.5"), (#""0s""#, #""0s""#)])
    func nonPositiveDuration(value: String, quoted: String) throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("connect_timeout = \(value)"))
        #expect(error.problem("connect_timeout")?.description == "\(fixture.configurationPath):3: connect_timeout: must be greater than 0 (was \(quoted))")
    }

    @Test("a duration of the wrong TOML type names the expectation")
    func durationOfWrongType() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("reconnect_min = true"))
        #expect(error.problem("reconnect_min")?.message.hasPrefix("expected a duration") == true)
        #expect(error.problem("reconnect_min")?.message.hasSuffix("(was true)") == true)
    }

    @Test("dead_peer_timeout must be greater than heartbeat_interval")
    func deadPeerNotAboveHeartbeat() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("heartbeat_interval = 10", #"dead_peer_timeout = "10s""#))
        let problem = try #require(error.problem("dead_peer_timeout"))
        #expect(problem.line == 4)
        #expect(problem.message == #"must be greater than heartbeat_interval (10s) (was "10s")"#)
    }

    @Test("reconnect_max must not be less than reconnect_min")
    func reconnectOrder() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("reconnect_min = 30", "reconnect_max = 5"))
        let problem = try #require(error.problem("reconnect_max"))
        #expect(problem.line == 4)
        #expect(problem.message.contains("must not be less than reconnect_min (30s)"))
        // With reconnect_max at its default, the blame falls on the reconnect_min that was set.
        let alone = fixture.problems(ConfigurationFixture.minimal("reconnect_min = \"2min\""))
        #expect(alone.problem("reconnect_min")?.line == 3)
    }

    @Test("max_message_size takes bytes or KiB/MiB strings", arguments: [
        ("2048", 2048), (#""64KiB""#, 65536), (#""1MiB""#, 1_048_576), (#""64MiB""#, 64 << 20), (#""4096""#, 4096),
    ])
    func messageSize(value: String, expected: Int) throws {
        let fixture = try ConfigurationFixture()
        let loaded = try fixture.load(ConfigurationFixture.minimal("max_message_size = \(value)"))
        #expect(loaded.configuration.maxMessageSize == expected)
    }

    @Test("max_message_size outside 1 KiB…64 MiB or not a size is refused", arguments: [
        ("512", "must be from 1024 bytes to 64 MiB"), (#""65MiB""#, "must be from 1024 bytes to 64 MiB"),
        ("-5", "must be from 1024 bytes to 64 MiB"), (#""lots""#, "expected a size in bytes"),
        ("1.5", "expected a size in bytes"), (#""1 MB""#, "expected a size in bytes"),
    ])
    func badMessageSize(value: String, message: String) throws {
        let fixture = try ConfigurationFixture()
        let problem = fixture.problems(ConfigurationFixture.minimal("max_message_size = \(value)")).problem("max_message_size")
        #expect(problem?.line == 3)
        #expect(problem?.message.hasPrefix(message) == true)
        #expect(problem?.message.hasSuffix("(was \(value))") == true)
    }

    @Test("retention settings are integers of 0 or more")
    func retention() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("retention_days = -1", #"retention_max_rows = "many""#))
        #expect(error.problem("retention_days")?.description == "\(fixture.configurationPath):3: retention_days: must be 0 or more (was -1)")
        #expect(error.problem("retention_max_rows")?.description == #"\#(fixture.configurationPath):4: retention_max_rows: expected an integer (was "many")"#)
    }

    @Test("log_level is one of the four levels, in any case")
    func logLevel() throws {
        let fixture = try ConfigurationFixture()
        #expect(try fixture.load(ConfigurationFixture.minimal(#"log_level = "WARNING""#)).configuration.logLevel == .warning)
        let problem = fixture.problems(ConfigurationFixture.minimal(#"log_level = "verbose""#)).problem("log_level")
        #expect(problem?.line == 3)
        #expect(problem?.message == #"expected debug, info, warning or error (was "verbose")"#)
        #expect(LogLevel.warning.loggerLevel == .warning)
    }

    @Test("path must start with / and use only known placeholders")
    func path() throws {
        let fixture = try ConfigurationFixture()
        let relative = fixture.problems(ConfigurationFixture.minimal(#"path = "connect/{token}""#)).problem("path")
        #expect(relative?.line == 3)
        #expect(relative?.message == #"must start with / (was "connect/{token}")"#)
        let typo = fixture.problems(ConfigurationFixture.minimal(#"path = "/c/{org}/{tokn}""#)).problem("path")
        #expect(typo?.message.hasPrefix("unknown placeholder {tokn}") == true)
        let spaced = fixture.problems(ConfigurationFixture.minimal(#"path = "/c/{org} x""#)).problem("path")
        #expect(spaced?.message.hasPrefix("must not contain white space") == true)
    }

    @Test("ca_file must be a readable file")
    func caFile() throws {
        let fixture = try ConfigurationFixture()
        let missing = "\(fixture.directory)/missing.pem"
        let problem = fixture.problems(ConfigurationFixture.minimal(#"ca_file = "\#(missing)""#)).problem("ca_file")
        #expect(problem?.line == 3)
        #expect(problem?.message == "cannot read \(missing): No such file or directory")
        let directory = fixture.problems(ConfigurationFixture.minimal(#"ca_file = "\#(fixture.directory)""#))
        #expect(directory.problem("ca_file")?.message == "cannot read \(fixture.directory): is a directory")
    }

    @Test("heartbeat_text, ack_text, client and id_field must not be empty")
    func emptyTexts() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(
            ConfigurationFixture.minimal(#"heartbeat_text = """#, #"ack_text = """#, #"client = """#, #"id_field = """#))
        #expect(error.problem("heartbeat_text")?.description == #"\#(fixture.configurationPath):3: heartbeat_text: must not be empty (was "")"#)
        #expect(error.problem("ack_text")?.line == 4)
        #expect(error.problem("client")?.line == 5)
        #expect(error.problem("id_field")?.line == 6)
    }

    @Test("a TOML type mismatch names the expected type and the value")
    func typeMismatch() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(
            "host = \"push.corp\"\norg = 42\ntls = \"yes\"\nretention_days = \"90\"\nclient = [\"a\"]\ndatabase = 1979-05-27\n")
        #expect(error.problem("org")?.description == "\(fixture.configurationPath):2: org: expected a string (was 42)")
        #expect(error.problem("tls")?.message == #"expected a boolean, true or false (was "yes")"#)
        #expect(error.problem("retention_days")?.message == #"expected an integer (was "90")"#)
        #expect(error.problem("client")?.message == #"expected a string (was ["a"])"#)
        #expect(error.problem("database")?.message == "expected a string (was a date)")
    }

    @Test("every problem is reported, one line each, in file order")
    func allProblems() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(
            "log_level = \"loud\"\nhost = \"a b\"\nwhat = 1\nheartbeat_interval = \"soon\"\n")
        let lines = error.description.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.prefix(4).map { $0.split(separator: ":")[1] } == ["1", "2", "3", "4"])
        #expect(lines[4].hasPrefix("\(fixture.configurationPath): org: required"))
    }
}
