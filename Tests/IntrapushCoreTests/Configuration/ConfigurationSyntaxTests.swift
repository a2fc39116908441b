import IntrapushCore
import Testing

@Suite("Configuration file structure")
struct ConfigurationSyntaxTests {
    @Test("a TOML syntax error reports the file and the line TOMLKit found it on")
    func syntaxError() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal("tls = true", "heartbeat_interval = = 3"))
        print(error.description)
        #expect(error.problems.count == 1)
        let problem = try #require(error.problem(nil))
        #expect(problem.file == fixture.configurationPath)
        #expect(problem.line == 4)
        #expect(error.description.hasPrefix("\(fixture.configurationPath):4: not valid TOML"))
    }
}
