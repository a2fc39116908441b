// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Configuration: proxy, https_proxy, no_proxy")
struct ConfigurationProxyTests {
    func load(_ lines: [String], environment: [String: String] = [:]) throws -> Configuration {
        let fixture = try ConfigurationFixture()
        fixture.environment.merge(environment) { $1 }
        return try fixture.load(ConfigurationFixture.minimal(lines.joined(separator: "\n"))).configuration
    }

    @Test("proxy with credentials: parsed, percent-decoded, shown as *** by --check-config")
    func fromKey() throws {
        let configuration = try load(["tls = true", #"proxy = "http://svc%40corp:p%3Ass@proxy.corp:3128""#])
        let proxy = try #require(configuration.proxy)
        #expect(proxy.host == "proxy.corp" && proxy.port == 3128 && proxy.source == "proxy")
        #expect(proxy.credentials?.value == "svc@corp:p:ss")
        let rendered = configuration.rendered()
        #expect(rendered.contains(#"proxy = "http://***@proxy.corp:3128""#), "\(rendered)")
        #expect(!rendered.contains("p:ss") && !rendered.contains("p%3Ass"))
        #expect(configuration.connection.proxy == proxy)
    }

    @Test("from the environment: https_proxy for wss, http_proxy for ws, HTTP_PROXY never; proxy wins, and empty turns it off")
    func fromEnvironment() throws {
        let environment = ["https_proxy": "http://secure:8443", "http_proxy": "http://plain:8080", "HTTP_PROXY": "http://cgi:1"]
        #expect(try load(["tls = true"], environment: environment).proxy?.host == "secure")
        #expect(try load(["tls = false"], environment: environment).proxy?.host == "plain")
        #expect(try load(["tls = false"], environment: ["HTTP_PROXY": "http://cgi:1"]).proxy == nil)
        #expect(try load(["tls = true"], environment: ["HTTPS_PROXY": "http://upper:3128"]).proxy?.source == "HTTPS_PROXY")
        #expect(try load([#"proxy = "http://mine:1""#], environment: environment).proxy?.host == "mine")
        #expect(try load([#"proxy = """#], environment: environment).proxy == nil)
    }

    @Test(
        "no_proxy: *, domains with or without a dot, IP addresses, ports",
        arguments: [
            ("*", true), ("corp", true), (".corp", true), ("push.corp", true), ("PUSH.CORP", true), ("ush.corp", false),
            ("other.example, corp", true), ("push.corp:8080", true), ("push.corp:443", false), ("10.0.0.1", false),
        ])
    func noProxy(entries: String, bypasses: Bool) throws {
        let configuration = try load(["tls = false"], environment: ["http_proxy": "http://proxy:3128", "no_proxy": entries])
        #expect((configuration.proxy == nil) == bypasses, "host push.corp:8080, no_proxy \(entries)")
    }

    @Test("a bad proxy is refused naming the key, without repeating a password")
    func refused() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal(#"proxy = "socks5://u:hunter2@proxy:1080""#))
        let problem = try #require(error.problem("proxy"))
        #expect(problem.message.contains("only http:// proxies"), "\(problem)")
        #expect(!error.description.contains("hunter2"))
    }
}
