// SPDX-License-Identifier: Apache-2.0

@testable import IntrapushConfiguration
import Testing

@Suite("TLS unless said otherwise: ws only where tls = false is written, or to a server on this machine")
struct ConfigurationTLSDefaultTests {
    func loaded(_ text: String) throws -> (Configuration, String) {
        let fixture = try ConfigurationFixture()
        let result = try fixture.load(text)
        return (result.configuration, result.configuration.rendered(sources: result.sources))
    }

    @Test("a server on the network: wss, and --check-config says it is the default")
    func networkServer() throws {
        let (configuration, rendered) = try loaded("host = \"push1.corp.example:443\"\norg = \"acme\"\ntoken = \"t\"\n")
        #expect(configuration.tls)
        #expect(configuration.endpoint.redactedURL == "wss://push1.corp.example/connect/linux/acme/***")
        #expect(rendered.contains("tls = true  # default: wss unless tls = false is written"))
    }

    @Test("tls = false written: ws, from the file that says it")
    func written() throws {
        let (configuration, rendered) = try loaded("host = \"push1.corp.example\"\norg = \"acme\"\ntoken = \"t\"\ntls = false\n")
        #expect(!configuration.tls)
        #expect(configuration.endpoint.redactedURL.hasPrefix("ws://push1.corp.example/"))
        #expect(rendered.contains("tls = false  # "))
        #expect(!rendered.contains("# default: wss"))
    }

    @Test("every server on this machine: ws by default; one off it is enough for wss", arguments: [
        (["127.0.0.1:8080"], false), (["localhost"], false), (["[::1]:9000"], false),
        (["127.0.0.1:8080", "push2.corp.example"], true), (["push1.corp.example", "localhost"], true),
    ])
    func local(hosts: [String], expected: Bool) throws {
        let list = "[" + hosts.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        let (configuration, rendered) = try loaded("host = \(list)\norg = \"acme\"\ntoken = \"t\"\n")
        #expect(configuration.tls == expected)
        if !expected { #expect(rendered.contains("tls = false  # default: ws: every server is on this machine")) }
    }

    @Test("tls = true to this machine is kept")
    func localWithTLS() throws {
        let (configuration, _) = try loaded("host = \"localhost:8443\"\norg = \"acme\"\ntoken = \"t\"\ntls = true\n")
        #expect(configuration.tls)
    }
}
