import IntrapushConfiguration
import Testing

@Suite("Configuration of the handshake: headers, subprotocol, hello_text")
struct ConfigurationHandshakeTests {
    @Test("headers, subprotocol and hello_text are read; {token} becomes the token only on the wire")
    func tokenOnlyOnTheWire() throws {
        let fixture = try ConfigurationFixture()
        let configuration = try fixture.load(
            ConfigurationFixture.minimal(
                #"headers = ["Authorization: Bearer {token}", "Origin:  https://desk.corp "]"#,
                #"subprotocol = "intrapush.v1""#, #"hello_text = '{"login":"{token}"}'"#)
        ).configuration
        #expect(configuration.headers == [
            HandshakeHeader(name: "Authorization", value: "Bearer {token}"),
            HandshakeHeader(name: "Origin", value: "https://desk.corp"),
        ])
        #expect(configuration.connection.headers[0].value == "Bearer \(ConfigurationFixture.token)")
        #expect(configuration.subprotocol == "intrapush.v1")
        #expect(configuration.connection.helloText == #"{"login":"\#(ConfigurationFixture.token)"}"#)

        let rendered = configuration.rendered()
        #expect(rendered.contains(#"headers = ["Authorization: Bearer ***", "Origin: https://desk.corp"]"#))
        #expect(rendered.contains(#"subprotocol = "intrapush.v1""#))
        #expect(rendered.contains(#"hello_text = "{\"login\":\"***\"}""#))
        #expect(!rendered.contains(ConfigurationFixture.token))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains(ConfigurationFixture.token))
    }

    @Test("INTRAPUSH_HEADERS holds one header per line; an empty variable unsets subprotocol and hello_text")
    func environment() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_HEADERS"] = "X-One: 1\n\nX-Two: 2\n"
        fixture.environment["INTRAPUSH_SUBPROTOCOL"] = ""
        fixture.environment["INTRAPUSH_HELLO_TEXT"] = ""
        let configuration = try fixture.load(
            ConfigurationFixture.minimal(#"subprotocol = "v1""#, #"hello_text = "hi""#)
        ).configuration
        #expect(configuration.headers.map(\.name) == ["X-One", "X-Two"])
        #expect(configuration.subprotocol == nil)
        #expect(configuration.helloText == nil)
    }

    @Test("a bad headers item is named by its position and the reason, never by its value")
    func badHeaders() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(
            ConfigurationFixture.minimal(
                #"headers = ["Bearer secret-1", "Bad Name: secret-2", "Content-Length: 0", "#
                    + #""Sec-WebSocket-Protocol: v1", "X-Ok: secret-3\u0007"]"#))
        let messages = error.problems.map(\.description)
        #expect(messages.count == 5)
        #expect(messages.allSatisfy { $0.hasPrefix("\(fixture.configurationPath):3: headers: item ") })
        #expect(messages[0].hasSuffix(#"item 1 is not of the form "Name: value""#))
        #expect(messages[1].contains("item 2 has no valid header name"))
        #expect(messages[2].hasSuffix("item 3 sets Content-Length, which cannot be set here: the handshake is a GET without a body"))
        #expect(messages[3].hasSuffix("item 4 sets Sec-WebSocket-Protocol, which cannot be set here: set subprotocol instead"))
        #expect(messages[4].hasSuffix("item 5 (X-Ok) has a line break or control character in its value"))
        #expect(!messages.joined().contains("secret-"))
    }

    @Test("headers must be an array of strings, subprotocol one token")
    func wrongTypes() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(
            ConfigurationFixture.minimal(#"headers = "X-A: 1""#, #"subprotocol = "v1, v2""#))
        #expect(error.problem("headers")?.message == #"expected an array of strings like ["Authorization: Bearer {token}"]"#)
        #expect(error.problem("subprotocol")?.message.hasPrefix("must be one subprotocol name") == true)
        #expect(error.problem("subprotocol")?.message.hasSuffix(#"(was "v1, v2")"#) == true)
    }
}
