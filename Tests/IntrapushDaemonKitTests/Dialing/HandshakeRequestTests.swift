// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import NIOHTTP1
import Testing

@testable import IntrapushConfiguration
@testable import IntrapushDaemonKit


@Suite("The opening handshake's request and the subprotocol check")
struct HandshakeRequestTests {
    static func target(headers: [HandshakeHeader] = [], subprotocol: String? = nil) -> ConnectionSettings {
        Configuration(
            host: "push.corp:8080", org: "acme", token: Secret("t"), headers: headers, subprotocol: subprotocol
        ).connection
    }

    @Test("the GET announces no body: no Content-Length, no Transfer-Encoding")
    func noBodyFraming() {
        let head = WebSocketDialer.upgradeRequestHead(for: Self.target())
        #expect(head.method == .GET)
        #expect(head.uri == "/connect/linux/acme/t")
        #expect(head.headers["Host"] == ["push.corp:8080"])
        #expect(head.headers["User-Agent"] == ["intrapushd/\(ProductVersion.upstream) intrapush-protocol/1"])
        #expect(head.headers["Intrapush-Protocol"] == ["1; profile=canonical"])
        #expect(!head.headers.contains(name: "Content-Length"))
        #expect(!head.headers.contains(name: "Transfer-Encoding"))
        #expect(!head.headers.contains(name: "Sec-WebSocket-Protocol"))
    }

    @Test("configured headers are added as written, a User-Agent replaces ours, the subprotocol is asked for")
    func configuredHeaders() {
        let head = WebSocketDialer.upgradeRequestHead(for: Self.target(
            headers: [HandshakeHeader(name: "Authorization", value: "Bearer t"),
                      HandshakeHeader(name: "user-agent", value: "desk/2"),
                      HandshakeHeader(name: "X-Tag", value: "a"), HandshakeHeader(name: "X-Tag", value: "b")],
            subprotocol: "intrapush.v1"))
        #expect(head.headers["Authorization"] == ["Bearer t"])
        #expect(head.headers["User-Agent"] == ["desk/2"])
        #expect(head.headers["X-Tag"] == ["a", "b"])
        #expect(head.headers["Sec-WebSocket-Protocol"] == ["intrapush.v1"])
        #expect(head.headers["Intrapush-Protocol"] == ["1; profile=canonical"], "a User-Agent of the headers leaves it")
    }

    @Test("Intrapush-Protocol says custom when a wire-form setting differs from its default")
    func customProfile() {
        var configuration = Configuration(host: "push.corp:8080", org: "acme", token: Secret("t"))
        configuration.ackText = "ack {id}"
        let head = WebSocketDialer.upgradeRequestHead(for: configuration.connection)
        #expect(head.headers["Intrapush-Protocol"] == ["1; profile=custom"])
        #expect(head.headers["User-Agent"] == ["intrapushd/\(ProductVersion.upstream) intrapush-protocol/1"])
    }

    @Test("the 101 must select the subprotocol asked for, and none that was not")
    func subprotocolCheck() throws {
        func response(_ selected: String?) -> HTTPResponseHead {
            var headers = HTTPHeaders()
            if let selected { headers.add(name: "Sec-WebSocket-Protocol", value: selected) }
            return HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers)
        }
        try WebSocketDialer.checkSubprotocol(of: response("intrapush.v1"), requested: "intrapush.v1")
        try WebSocketDialer.checkSubprotocol(of: response(nil), requested: nil)
        for (selected, requested) in [(nil, "intrapush.v1"), ("chat", "intrapush.v1"), ("chat", nil)] as [(String?, String?)] {
            #expect(throws: SubprotocolMismatch.self) {
                try WebSocketDialer.checkSubprotocol(of: response(selected), requested: requested)
            }
        }
    }

    @Test("a subprotocol mismatch reads as what happened and what to check")
    func mismatchDescriptions() {
        #expect(DisconnectReason.subprotocolMismatch(requested: "v1", selected: nil).description
            == "the server did not select subprotocol v1; check subprotocol in the configuration")
        #expect(DisconnectReason.subprotocolMismatch(requested: "v1", selected: "chat").description
            == "the server selected subprotocol chat instead of v1; check subprotocol in the configuration")
        #expect(DisconnectReason.subprotocolMismatch(requested: nil, selected: "chat").description
            == "the server selected subprotocol chat, which was not asked for; set subprotocol if the server needs it")
    }
}

@Suite("The host's identity on the upgrade (C-HOST-1)")
struct HostIdentityHandshakeTests {
    @Test("Intrapush-Host carries the host's identity on every upgrade; none is sent when none is known")
    func hostHeader() {
        var configuration = Configuration(host: "push.corp:8080", org: "acme", token: Secret("t"))
        #expect(!WebSocketDialer.upgradeRequestHead(for: configuration.connection).headers.contains(name: "Intrapush-Host"))
        configuration.hostIdentity = HostIdentity(value: "c3a99bba21c84a0f90440fa88a49d498", origin: .machine)
        let head = WebSocketDialer.upgradeRequestHead(for: configuration.connection)
        #expect(head.headers["Intrapush-Host"] == ["c3a99bba21c84a0f90440fa88a49d498"])
        #expect(head.uri == "/connect/linux/acme/t", "the default path does not change: the header carries the host")
    }
}
