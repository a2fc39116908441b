// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Configuration file structure")
struct ConfigurationSyntaxTests {
    @Test("a TOML syntax error reports the file and the line TOMLKit found it on")
    func syntaxError() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("tls = true", "heartbeat_interval = = 3"))
        #expect(error.problems.count == 1)
        let problem = try #require(error.problem(nil))
        #expect(problem.file == fixture.configurationPath)
        #expect(problem.line == 4)
        #expect(error.description.hasPrefix("\(fixture.configurationPath):4: not valid TOML"))
    }

    @Test("a key defined twice is a syntax error on the second line")
    func duplicateKey() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("tls = true", "tls = false"))
        #expect(error.problem(nil)?.line == 4)
    }

    @Test("a [table] is refused at its header line, as the file is flat")
    func table() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("", "[server]", "tls = true"))
        let problem = try #require(error.problem("server"))
        #expect(problem.line == 4)
        #expect(problem.description == "\(fixture.configurationPath):4: server: tables are not supported; intrapush.conf is flat (write key = value lines only)")
    }

    @Test("a dotted key is a table too, refused at its line")
    func dottedKey() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("server.host = \"x\""))
        let problem = try #require(error.problem("server"))
        #expect(problem.line == 3)
        #expect(problem.message.contains("tables are not supported"))
    }

    @Test("an unknown key is an error at its line, with a hint when it is a likely typo")
    func unknownKeyWithHint() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("tls = false", "heartbeat_intervall = 5"))
        let problem = try #require(error.problem("heartbeat_intervall"))
        #expect(problem.line == 4)
        #expect(problem.description == "\(fixture.configurationPath):4: heartbeat_intervall: unknown key; did you mean heartbeat_interval?")
    }

    @Test("hints also catch camel case and hyphens; unrelated keys get none")
    func unknownKeyHints() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(
            ConfigurationFixture.minimal("heartbeatInterval = 5", "log-level = \"info\"", "colour = \"red\""))
        #expect(error.problem("heartbeatInterval")?.message == "unknown key; did you mean heartbeat_interval?")
        #expect(error.problem("log-level")?.message == "unknown key; did you mean log_level?")
        #expect(error.problem("colour")?.message == "unknown key")
        #expect(error.problem("colour")?.line == 5)
    }

    @Test("a key in a multi-line string is not mistaken for a real one")
    func multilineString() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(
            ConfigurationFixture.minimal("on_notification = \"\"\"", "colour = 1", "\"\"\"", "colour = 2"))
        #expect(error.problem("colour")?.line == 6)
    }

    @Test("the configuration named with --config must exist")
    func missingNamedFile() throws {
        let fixture = try ConfigurationFixture()
        let path = "\(fixture.directory)/nowhere.conf"
        #expect(throws: ConfigurationError.self) {
            try fixture.loader.load(explicitPath: path, purpose: .daemon)
        }
        do {
            _ = try fixture.loader.load(explicitPath: path, purpose: .daemon)
        } catch {
            #expect(error.description == "\(path): cannot read the configuration file: No such file or directory")
        }
    }
}
