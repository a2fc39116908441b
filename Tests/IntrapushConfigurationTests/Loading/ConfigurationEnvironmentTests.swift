// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Configuration from the environment")
struct ConfigurationEnvironmentTests {
    @Test("INTRAPUSH_<KEY> wins over the file")
    func overridesFile() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_HEARTBEAT_INTERVAL"] = "250ms"
        fixture.environment["INTRAPUSH_ORG"] = "other"
        let configuration = try fixture.load(ConfigurationFixture.minimal("heartbeat_interval = 10")).configuration
        #expect(configuration.heartbeatInterval == .milliseconds(250))
        #expect(configuration.org == "other")
        #expect(configuration.host == "push.corp:8080")
    }

    @Test("a bad override names the variable, not the file")
    func badOverride() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_HEARTBEAT_INTERVAL"] = "x"
        let error = fixture.problems(ConfigurationFixture.minimal("heartbeat_interval = 10"))
        let problem = try #require(error.problem("INTRAPUSH_HEARTBEAT_INTERVAL"))
        #expect(problem.file == nil)
        #expect(problem.line == nil)
        #expect(problem.description == #"INTRAPUSH_HEARTBEAT_INTERVAL: expected a duration like 10, "250ms", "10s", "5min", "1h" or "7d" (was "x")"#)
    }

    @Test("booleans from the environment accept true/false/yes/no/1/0 in any case",
          arguments: [("true", true), ("YES", true), ("1", true), ("false", false), ("no", false), ("0", false)])
    func booleans(text: String, expected: Bool) throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_TLS"] = text
        #expect(try fixture.load(ConfigurationFixture.minimal()).configuration.tls == expected)
    }

    @Test("typed overrides that do not parse are each reported")
    func badTypedOverrides() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_TLS"] = "maybe"
        fixture.environment["INTRAPUSH_RETENTION_DAYS"] = "seven"
        fixture.environment["INTRAPUSH_MAX_MESSAGE_SIZE"] = "1 MB"
        let error = fixture.problems(ConfigurationFixture.minimal())
        #expect(error.problem("INTRAPUSH_TLS")?.description == #"INTRAPUSH_TLS: expected true, false, yes, no, 1 or 0 (was "maybe")"#)
        #expect(error.problem("INTRAPUSH_RETENTION_DAYS")?.description == #"INTRAPUSH_RETENTION_DAYS: expected an integer (was "seven")"#)
        #expect(error.problem("INTRAPUSH_MAX_MESSAGE_SIZE")?.message.hasPrefix("expected a size in bytes") == true)
    }

    @Test("integers, sizes and durations are parsed from the variables' text")
    func typedOverrides() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_RETENTION_DAYS"] = "7"
        fixture.environment["INTRAPUSH_MAX_MESSAGE_SIZE"] = "64KiB"
        fixture.environment["INTRAPUSH_RECONNECT_MAX"] = "1.5"
        fixture.environment["INTRAPUSH_LOG_LEVEL"] = "error"
        let configuration = try fixture.load(ConfigurationFixture.minimal()).configuration
        #expect(configuration.retentionDays == 7)
        #expect(configuration.maxMessageSize == 65536)
        #expect(configuration.reconnectMax == .milliseconds(1500))
        #expect(configuration.logLevel == .error)
    }

    @Test("when no file is named and the default one is absent, the environment alone is the configuration")
    func environmentOnly() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_HOST"] = "push.corp"
        fixture.environment["INTRAPUSH_ORG"] = "acme"
        let loaded = try fixture.load(nil)
        #expect(loaded.files.isEmpty)
        #expect(loaded.configuration.endpoint.redactedURL == "wss://push.corp/connect/linux/acme/***")
    }

    @Test("with neither file nor variables, host and org are required, naming their variables")
    func environmentOnlyMissing() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(nil)
        #expect(error.problem("host")?.file == nil)
        #expect(error.problem("host")?.message.contains("INTRAPUSH_HOST") == true)
        #expect(error.problem("org")?.message.contains("INTRAPUSH_ORG") == true)
    }

    @Test("the default file is read when present")
    func defaultFile() throws {
        let fixture = try ConfigurationFixture()
        let path = try fixture.write("default.conf", ConfigurationFixture.minimal())
        let loaded = try fixture.loader.load(explicitPath: nil, purpose: .daemon)
        #expect(loaded.files == [path])
        #expect(loaded.configuration.org == "acme")
    }

    @Test("INTRAPUSH_CONFIG names the file, and --config wins over it")
    func configVariable() throws {
        let fixture = try ConfigurationFixture()
        let named = try fixture.write("named.conf", ConfigurationFixture.minimal(#"client = "named""#))
        let explicit = try fixture.write("explicit.conf", ConfigurationFixture.minimal(#"client = "explicit""#))
        fixture.environment["INTRAPUSH_CONFIG"] = named
        let fromVariable = try fixture.loader.load(explicitPath: nil, purpose: .daemon)
        #expect(fromVariable.files == [named])
        #expect(fromVariable.configuration.client == "named")
        #expect(fromVariable.warnings.filter { !$0.contains("travels in clear") }.isEmpty)
        let fromOption = try fixture.loader.load(explicitPath: explicit, purpose: .daemon)
        #expect(fromOption.configuration.client == "explicit")
    }

    @Test("a file named by INTRAPUSH_CONFIG must exist")
    func configVariableMissing() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_CONFIG"] = "\(fixture.directory)/gone.conf"
        #expect(throws: ConfigurationError.self) { try fixture.loader.load(explicitPath: nil, purpose: .daemon) }
    }

    @Test("unknown INTRAPUSH_ variables are ignored with a warning; the hook's and INTRAPUSH_CONFIG silently")
    func unknownVariables() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_HEARTBEAT"] = "5"
        fixture.environment["INTRAPUSH_HEARTBEAT_INTERVALL"] = "5"
        fixture.environment["INTRAPUSH_host"] = "elsewhere"
        for name in ["INTRAPUSH_ID", "INTRAPUSH_MESSAGE_ID", "INTRAPUSH_TITLE", "INTRAPUSH_BODY"] {
            fixture.environment[name] = "x"
        }
        fixture.environment["INTRAPUSH_CONFIG"] = try fixture.write("c.conf", ConfigurationFixture.minimal())
        let loaded = try fixture.loader.load(explicitPath: nil, purpose: .daemon)
        #expect(loaded.configuration.heartbeatInterval == .seconds(10))
        #expect(loaded.configuration.host == "push.corp:8080")
        #expect(loaded.warnings.filter { !$0.contains("travels in clear") } == [
            "INTRAPUSH_HEARTBEAT: not a configuration variable, ignored",
            "INTRAPUSH_HEARTBEAT_INTERVALL: not a configuration variable, ignored; did you mean INTRAPUSH_HEARTBEAT_INTERVAL?",
            "INTRAPUSH_host: not a configuration variable, ignored; did you mean INTRAPUSH_HOST?",
        ])
    }

    @Test("database defaults to the first STATE_DIRECTORY, and INTRAPUSH_DATABASE wins over everything")
    func database() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["STATE_DIRECTORY"] = "/var/lib/intrapush:/var/lib/other"
        #expect(try fixture.load(ConfigurationFixture.minimal()).configuration.database == "/var/lib/intrapush/notifications.sqlite3")
        fixture.environment["STATE_DIRECTORY"] = "/srv/state"
        #expect(try fixture.load(ConfigurationFixture.minimal()).configuration.database == "/srv/state/notifications.sqlite3")
        #expect(try fixture.load(ConfigurationFixture.minimal(#"database = "/a.db""#)).configuration.database == "/a.db")
        fixture.environment["INTRAPUSH_DATABASE"] = "/b.db"
        #expect(try fixture.load(ConfigurationFixture.minimal(#"database = "/a.db""#)).configuration.database == "/b.db")
    }
}
