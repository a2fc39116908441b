import Testing

@testable import IntrapushDaemonKit

@Suite("Base64 for Proxy-Authorization")
struct Base64Tests {
    @Test("RFC 4648's test vectors")
    func vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors { #expect(Base64.encode(Array(plain.utf8)) == encoded, "\(plain)") }
    }
}

@Suite("The proxy's answer to CONNECT")
struct ProxyResponseHeadTests {
    @Test("the status once the head is complete; nil before; not HTTP is an error")
    func parse() throws {
        #expect(try ProxyResponseHead.parse(Array("HTTP/1.1 200 Connection established\r\n".utf8)) == nil)
        let whole = Array("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n".utf8)
        let parsed = try #require(try ProxyResponseHead.parse(whole))
        #expect(parsed.head.status == 407 && parsed.length == whole.count)
        #expect(throws: ProxyTunnelError.malformed) { try ProxyResponseHead.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) }
    }
}
