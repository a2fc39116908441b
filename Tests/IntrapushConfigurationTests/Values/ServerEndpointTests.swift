// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Server endpoint")
struct ServerEndpointTests {
    private func endpoint(host: String, tls: Bool = false, path: String = Configuration.Defaults.pathTemplate)
        -> ServerEndpoint
    {
        Configuration(host: host, org: "acme", token: Secret("t/k"), tls: tls, pathTemplate: path).endpoint
    }

    @Test("ws with an explicit port keeps the port in the Host header and the redacted URL")
    func explicitPort() {
        let endpoint = endpoint(host: "push.corp:8080")
        #expect(endpoint.scheme == "ws")
        #expect(endpoint.host == "push.corp")
        #expect(endpoint.port == 8080)
        #expect(endpoint.hostHeader == "push.corp:8080")
        #expect(endpoint.path == "/connect/linux/acme/t%2Fk")
        #expect(endpoint.redactedURL == "ws://push.corp:8080/connect/linux/acme/***")
    }

    @Test("default ports are 80 for ws and 443 for wss, and left out of the Host header")
    func defaultPorts() {
        let plain = endpoint(host: "push.corp")
        #expect(plain.port == 80)
        #expect(plain.hostHeader == "push.corp")
        let secure = endpoint(host: "push.corp", tls: true)
        #expect(secure.scheme == "wss")
        #expect(secure.port == 443)
        #expect(secure.redactedURL == "wss://push.corp/connect/linux/acme/***")
        #expect(endpoint(host: "push.corp:443", tls: true).hostHeader == "push.corp")
        #expect(endpoint(host: "push.corp:443").hostHeader == "push.corp:443")
    }

    @Test("an IPv6 address loses its brackets as the host and keeps them in the Host header")
    func ipv6() {
        let endpoint = endpoint(host: "[2001:db8::1]:8443", tls: true)
        #expect(endpoint.host == "2001:db8::1")
        #expect(endpoint.port == 8443)
        #expect(endpoint.hostHeader == "[2001:db8::1]:8443")
        #expect(endpoint.redactedURL == "wss://[2001:db8::1]:8443/connect/linux/acme/***")
        #expect(self.endpoint(host: "[::1]").hostHeader == "[::1]")
    }

    @Test("a custom template gets every placeholder, and the redacted URL never holds the token")
    func customTemplate() {
        let configuration = Configuration(
            host: "push.corp", org: "a b", client: "desk/1", token: Secret("s3cret"),
            pathTemplate: "/ws/{org}/{client}?auth={token}")
        #expect(configuration.endpoint.path == "/ws/a%20b/desk%2F1?auth=s3cret")
        #expect(configuration.endpoint.redactedURL == "ws://push.corp/ws/a%20b/desk%2F1?auth=***")
        #expect(!configuration.endpoint.redactedURL.contains("s3cret"))
    }

    @Test("a token that looks like a placeholder is encoded, not expanded")
    func placeholderLookalike() {
        let configuration = Configuration(host: "push.corp", org: "{token}", token: Secret("x"))
        #expect(configuration.endpoint.path == "/connect/linux/%7Btoken%7D/x")
    }
}
