// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDevServer

@Suite("Connect paths, queries and acknowledgement templates")
struct RoutingTests {
    @Test("segments are percent-decoded once, after splitting, so %2F stays inside its segment")
    func connectPathDecoding() throws {
        let route = try #require(ConnectRoute(path: "/connect/linux/Org%201%2F%C3%9C/t%2Fk%2Bn%3D"))
        #expect(route == ConnectRoute(client: "linux", org: "Org 1/Ü", token: "t/k+n="))
        #expect(ConnectRoute(path: "/connect/linux/acme/a%252Fb")?.token == "a%2Fb")
    }

    @Test("malformed connect paths are not routes", arguments: [
        "/connect/linux/acme", "/connect/linux/acme/token/extra", "/connect/linux//token",
        "/connect/linux/acme/%ZZ", "/connect/linux/acme/%C3", "/other/linux/acme/token",
    ])
    func malformedConnectPaths(path: String) {
        #expect(ConnectRoute(path: path[...]) == nil)
    }

    @Test("admission checks the token and honours a forced rejection")
    func admission() {
        let uri = "/connect/linux/acme/secret?x=1"
        #expect(Admission(uri: uri, token: "secret", forcedRejectionStatus: nil)
            == .accept(ConnectRoute(client: "linux", org: "acme", token: "secret")))
        #expect(Admission(uri: uri, token: "other", forcedRejectionStatus: nil) == .reject(status: 401))
        #expect(Admission(uri: uri, token: "secret", forcedRejectionStatus: 403) == .reject(status: 403))
        #expect(Admission(uri: "/connect/x", token: "secret", forcedRejectionStatus: nil) == .notFound)
    }

    @Test("query values are percent-decoded")
    func queryDecoding() {
        let target = RequestTarget(uri: "/push/burst?org=Org%201&count=5&flag")
        #expect(target.path == "/push/burst")
        #expect(target.query == ["org": "Org 1", "count": "5", "flag": ""])
    }

    @Test("an acknowledgement template with {id} yields the id; without, no id, and the text must be the template")
    func acknowledgementTemplates() {
        #expect(AcknowledgementTemplate("received message").read("received message") == .withoutID)
        #expect(AcknowledgementTemplate("received message").read("rdcfivud mdtsage") == .notAnAcknowledgement)
        #expect(AcknowledgementTemplate("received message").read("received message x") == .notAnAcknowledgement)
        let template = AcknowledgementTemplate("ack {id}!")
        #expect(template.read("ack m-1!") == .withID("m-1"))
        #expect(template.read("ack !") == .withID(""))
        #expect(template.read("nack m-1") == .notAnAcknowledgement)
        let json = AcknowledgementTemplate(#"{"type":"ack","id":"{id}"}"#)
        #expect(json.read(#"{"type":"ack","id":"q\"1\\é"}"#) == .withID("q\"1\\é"), "a JSON-shaped template's id is unescaped")
        #expect(json.read(#"{"type":"ack","id":""}"#) == .withID(""))
        #expect(json.read(#"{"type":"ack","id":"a"b"}"#) == .notAnAcknowledgement)
    }

    @Test("on /connect/{client}/{org} the token comes from Authorization: Bearer; without it the upgrade is refused")
    func bearerToken() {
        let uri = "/connect/linux/acme"
        #expect(Admission(uri: uri, authorization: "Bearer secret", token: "secret", forcedRejectionStatus: nil)
            == .accept(ConnectRoute(client: "linux", org: "acme", token: "secret")))
        #expect(Admission(uri: uri, authorization: "bearer  secret ", token: "secret", forcedRejectionStatus: nil)
            == .accept(ConnectRoute(client: "linux", org: "acme", token: "secret")))
        #expect(Admission(uri: uri, authorization: "Bearer other", token: "secret", forcedRejectionStatus: nil) == .reject(status: 401))
        #expect(Admission(uri: uri, authorization: nil, token: "secret", forcedRejectionStatus: nil) == .reject(status: 401))
        #expect(Admission(uri: uri, authorization: "Basic c2VjcmV0", token: "secret", forcedRejectionStatus: nil) == .reject(status: 401))
    }

    @Test("the message id of a JSON object payload is found, strings and numbers alike")
    func messageIDProbe() {
        #expect(MessageIDProbe.messageID(in: Array(#"{"id":"m-1","title":"x"}"#.utf8)) == "m-1")
        #expect(MessageIDProbe.messageID(in: Array(#" {"id":42}"#.utf8)) == "42")
        #expect(MessageIDProbe.messageID(in: Array(#"{"id":null}"#.utf8)) == nil)
        #expect(MessageIDProbe.messageID(in: Array(#"[{"id":"m"}]"#.utf8)) == nil)
        #expect(MessageIDProbe.messageID(in: Array("not json".utf8)) == nil)
        #expect(MessageIDProbe.messageID(in: Array(#"{"id":1.50e3}"#.utf8)) == "1.50e3", "a number's exact digits, as the daemon reads them")
        #expect(MessageIDProbe.messageID(in: Array(#"{"uid":"u-1","id":"x"}"#.utf8), field: "uid") == "u-1")
    }

    @Test("HOST:PORT parses, IPv6 in brackets, and rejects bad ports")
    func serverAddresses() {
        #expect(ServerAddress(parsing: "127.0.0.1:0") == ServerAddress(host: "127.0.0.1", port: 0))
        #expect(ServerAddress(parsing: "[::1]:8080") == ServerAddress(host: "::1", port: 8080))
        #expect(ServerAddress(host: "::1", port: 8080).description == "[::1]:8080")
        #expect(ServerAddress(parsing: "localhost") == nil)
        #expect(ServerAddress(parsing: "localhost:70000") == nil)
    }
}
