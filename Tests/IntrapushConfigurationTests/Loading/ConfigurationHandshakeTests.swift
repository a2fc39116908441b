// SPDX-License-Identifier: Apache-2.0

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

    @Test("Intrapush-Protocol in headers is refused: the daemon sends it itself")
    func protocolHeaderRefused() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal(#"headers = ["X-Ok: 1", "intrapush-protocol: 2"]"#))
        #expect(error.problem("headers")?.message
            == "item 2 sets intrapush-protocol, which cannot be set here: intrapushd sends it itself, naming the protocol's version and profile")
    }

    @Test("the token can travel in a header alone: a path without {token} and Authorization: Bearer {token}")
    func tokenInHeader() throws {
        let fixture = try ConfigurationFixture()
        let configuration = try fixture.load(ConfigurationFixture.minimal(
            #"path = "/connect/{client}/{org}""#, #"headers = ["Authorization: Bearer {token}"]"#)).configuration
        let connection = configuration.connection
        #expect(connection.endpoint.path == "/connect/linux/acme")
        #expect(!connection.endpoint.path.contains(ConfigurationFixture.token))
        #expect(connection.headers == [HandshakeHeader(name: "Authorization", value: "Bearer \(ConfigurationFixture.token)")])
    }

    @Test("{token} in a JSON-shaped hello_text is escaped as JSON; elsewhere it is the token as it is")
    func helloEncoding() throws {
        let fixture = try ConfigurationFixture()
        let json = try fixture.load(ConfigurationFixture.minimal(
            #"token = 'a"b\c'"#, #"hello_text = '{"type":"hello","token":"{token}"}'"#)).configuration
        #expect(json.connection.helloText == #"{"type":"hello","token":"a\"b\\c"}"#)
        let plain = try fixture.load(ConfigurationFixture.minimal(#"token = 'a"b\c'"#, #"hello_text = 'LOGIN {token}'"#)).configuration
        #expect(plain.connection.helloText == #"LOGIN a"b\c"#)
    }

    @Test("the protocol profile is canonical with the defaults, custom when any wire-form setting differs")
    func profile() throws {
        let fixture = try ConfigurationFixture()
        #expect(try fixture.load(ConfigurationFixture.minimal()).configuration.connection.protocolProfile == .canonical)
        #expect(try fixture.load(ConfigurationFixture.minimal(#"reply_to_field = "id""#, #"ack_text = "received message""#))
            .configuration.connection.protocolProfile == .canonical, "the defaults written out are still the defaults")
        for line in [#"heartbeat_text = "ping""#, #"ack_text = "ack {id}""#, #"id_field = "uid""#, #"upstream_id_field = "uid""#,
                     #"upstream_ack_text = """#, #"upstream_ack_text = "ok {id}""#, #"reply_to_field = "re""#] {
            #expect(try fixture.load(ConfigurationFixture.minimal(line)).configuration.connection.protocolProfile == .custom, "\(line)")
        }
        #expect(ProtocolProfile.canonical.headerValue == "1; profile=canonical")
        #expect(ProtocolProfile.custom.headerValue == "1; profile=custom")
    }
}

