// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Configuration token")
struct ConfigurationTokenTests {
    @Test("under systemd the token is $CREDENTIALS_DIRECTORY/token")
    func credentialsDirectory() throws {
        let fixture = try ConfigurationFixture()
        let configuration = try fixture.load(ConfigurationFixture.minimal()).configuration
        #expect(configuration.token.value == ConfigurationFixture.token)
        #expect(configuration.tokenSource == "token_file \(fixture.directory)/token (from CREDENTIALS_DIRECTORY)")
    }

    @Test("only the first line counts, its trailing white space trimmed")
    func firstLine() throws {
        let fixture = try ConfigurationFixture()
        try fixture.write("token", " abc def \t\r\nsecond line\n")
        #expect(try fixture.load(ConfigurationFixture.minimal()).configuration.token.value == " abc def")
    }

    @Test("token_file wins over CREDENTIALS_DIRECTORY")
    func tokenFileWins() throws {
        let fixture = try ConfigurationFixture()
        let path = try fixture.write("other-token", "other\n")
        let configuration = try fixture.load(ConfigurationFixture.minimal(#"token_file = "\#(path)""#)).configuration
        #expect(configuration.token.value == "other")
        #expect(configuration.tokenSource == "token_file \(path)")
    }

    @Test("token wins over token_file, with a warning that token_file is ignored")
    func tokenWins() throws {
        let fixture = try ConfigurationFixture()
        let loaded = try fixture.load(ConfigurationFixture.minimal(#"token = "inline""#, #"token_file = "/nowhere""#))
        #expect(loaded.configuration.token.value == "inline")
        #expect(loaded.configuration.tokenSource == "token")
        #expect(loaded.warnings.filter { !$0.contains("travels in clear") } == ["token_file is ignored because token is set"])
    }

    @Test("INTRAPUSH_TOKEN wins over the file's token")
    func tokenVariable() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_TOKEN"] = "from-env"
        let configuration = try fixture.load(ConfigurationFixture.minimal(#"token = "inline""#)).configuration
        #expect(configuration.token.value == "from-env")
        #expect(configuration.tokenSource == "INTRAPUSH_TOKEN")
    }

    @Test("without CREDENTIALS_DIRECTORY nor token_file, the default token file is read")
    func defaultTokenFile() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["CREDENTIALS_DIRECTORY"] = nil
        let missing = fixture.problems(ConfigurationFixture.minimal()).problem("token_file")
        #expect(missing?.message.hasPrefix("cannot read the token file \(fixture.directory)/default-token: No such file or directory") == true)
        #expect(missing?.message.hasSuffix("set token_file, or token, to say where the token is") == true)
        try fixture.write("default-token", "fallback\n")
        let configuration = try fixture.load(ConfigurationFixture.minimal()).configuration
        #expect(configuration.token.value == "fallback")
        #expect(configuration.tokenSource == "token_file \(fixture.directory)/default-token")
    }

    @Test("a missing token_file is named with its line and path")
    func missingTokenFile() throws {
        let fixture = try ConfigurationFixture()
        let path = "\(fixture.directory)/gone"
        let problem = fixture.problems(ConfigurationFixture.minimal(#"token_file = "\#(path)""#)).problem("token_file")
        #expect(problem?.description == "\(fixture.configurationPath):3: token_file: cannot read the token file \(path): No such file or directory")
    }

    @Test("a token_file that is a directory is refused")
    func directoryTokenFile() throws {
        let fixture = try ConfigurationFixture()
        let problem = fixture.problems(ConfigurationFixture.minimal(#"token_file = "\#(fixture.directory)""#)).problem("token_file")
        #expect(problem?.message == "cannot read the token file \(fixture.directory): is a directory")
    }

    @Test("an empty token file, or one whose first line is blank, is refused", arguments: ["", "\n", "  \t\nsecret\n"])
    func emptyTokenFile(contents: String) throws {
        let fixture = try ConfigurationFixture()
        try fixture.write("token", contents)
        let problem = fixture.problems(ConfigurationFixture.minimal()).problem("token_file")
        #expect(problem?.message == "the token file \(fixture.directory)/token is empty; its first line must hold the token")
        #expect(!fixture.problems(ConfigurationFixture.minimal()).description.contains("secret"))
    }

    @Test("INTRAPUSH_TOKEN_FILE overrides token_file, and its problems name the variable")
    func tokenFileVariable() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_TOKEN_FILE"] = "\(fixture.directory)/gone"
        let problem = fixture.problems(ConfigurationFixture.minimal()).problem("INTRAPUSH_TOKEN_FILE")
        #expect(problem?.file == nil)
        #expect(problem?.message.hasPrefix("cannot read the token file \(fixture.directory)/gone") == true)
    }

    @Test("an empty token is refused without quoting it")
    func emptyToken() throws {
        let fixture = try ConfigurationFixture()
        let problem = fixture.problems(ConfigurationFixture.minimal(#"token = """#)).problem("token")
        #expect(problem?.description == "\(fixture.configurationPath):3: token: must not be empty")
    }

    @Test("a token of the wrong type is refused without showing the value")
    func tokenOfWrongType() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("token = 987654321"))
        #expect(error.problem("token")?.description == "\(fixture.configurationPath):3: token: expected a string")
        #expect(!error.description.contains("987654321"))
    }

    @Test("the token's value appears in no problem, however many there are")
    func tokenInNoProblem() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_TOKEN"] = ConfigurationFixture.token
        let error = fixture.problems(
            #"host = "\#(ConfigurationFixture.token)"\#norg = ""\#nheartbeat_interval = "x"\#npath = "nope""#)
        #expect(error.problems.count >= 3)
        // The host problem quotes the host, which is the only place the same text was written.
        #expect(error.problems.filter { $0.description.contains(ConfigurationFixture.token) }.map(\.key) == ["host"])
    }
}
