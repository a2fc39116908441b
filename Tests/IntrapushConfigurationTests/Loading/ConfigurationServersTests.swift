// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Configuration: host as a list of servers, failback_interval")
struct ConfigurationServersTests {
    func load(_ toml: String, environment: [String: String] = [:]) throws -> Configuration {
        let fixture = try ConfigurationFixture()
        fixture.environment.merge(environment) { $1 }
        return try fixture.load(toml).configuration
    }

    @Test("a list: the first is the primary; each server its own endpoint (SNI, Host), the rest shared")
    func list() throws {
        let configuration = try load("""
            host = ["push1.corp:443", "push2.corp:8443", "[fd00::7]:9000"]
            org = "acme"
            tls = true
            """)
        #expect(configuration.hosts == ["push1.corp:443", "push2.corp:8443", "[fd00::7]:9000"])
        #expect(configuration.host == "push1.corp:443")
        #expect(configuration.endpoints.map(\.host) == ["push1.corp", "push2.corp", "fd00::7"])
        #expect(configuration.endpoints.map(\.port) == [443, 8443, 9000])
        let second = configuration.connection(toServer: 1)
        #expect(second.endpoint.hostHeader == "push2.corp:8443")
        #expect(second.endpoint.path == configuration.connection.endpoint.path)
        #expect(configuration.failbackInterval == .seconds(300))
        let rendered = configuration.rendered()
        #expect(rendered.contains(#"host = ["push1.corp:443", "push2.corp:8443", "[fd00::7]:9000"]"#), "\(rendered)")
        #expect(rendered.contains(#"failback_interval = "5min""#) || rendered.contains(#"failback_interval = "300s""#), "\(rendered)")
    }

    @Test("a single string keeps working; INTRAPUSH_HOST takes a comma-separated list")
    func stringAndEnvironment() throws {
        #expect(try load("host = \"push.corp\"\norg = \"acme\"\n").hosts == ["push.corp"])
        let fromEnvironment = try load("host = \"ignored\"\norg = \"acme\"\n", environment: ["INTRAPUSH_HOST": " a.corp:1 , b.corp:2,"])
        #expect(fromEnvironment.hosts == ["a.corp:1", "b.corp:2"])
    }

    @Test("failback_interval: a duration, 0 for never")
    func failbackInterval() throws {
        #expect(try load("host = [\"a\", \"b\"]\norg = \"acme\"\nfailback_interval = \"30s\"\n").failbackInterval == .seconds(30))
        #expect(try load("host = [\"a\", \"b\"]\norg = \"acme\"\nfailback_interval = 0\n").failbackInterval == nil)
    }

    @Test("refused: a bad name in the list (named), the same server twice, an empty list, a list of other things")
    func refused() throws {
        let fixture = try ConfigurationFixture()
        for (toml, words) in [
            ("host = [\"a.corp\", \"b.corp:99999\"]", "b.corp:99999"),
            ("host = [\"a.corp:80\", \"A.CORP:80\"]", "twice"),
            ("host = []", "host"),
            ("host = [1, 2]", "host"),
        ] {
            let error = fixture.problems(toml + "\norg = \"acme\"\n")
            #expect(error.problems.contains { "\($0)".contains("host") && "\($0)".contains(words) }, "\(toml): \(error.problems)")
        }
    }
}
