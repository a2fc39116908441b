// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Percent-encoded path segments")
struct PathSegmentTests {
    @Test("the contract's example: org `Org 1/Ü`, token `t/k+n=`")
    func contractExample() {
        let configuration = Configuration(host: "push.corp", org: "Org 1/Ü", token: Secret("t/k+n="))
        #expect(configuration.endpoint.path == "/connect/linux/Org%201%2F%C3%9C/t%2Fk%2Bn%3D")
    }

    @Test("unreserved characters pass through unchanged")
    func unreserved() {
        let unreserved = "ABCXYZabcxyz0189-._~"
        #expect(PathSegment.percentEncoded(unreserved) == unreserved)
    }

    @Test("reserved and other ASCII characters become upper-case %XX")
    func reserved() {
        #expect(PathSegment.percentEncoded("/?#[]@!$&'()*+,;=% ") == "%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%25%20")
        #expect(PathSegment.percentEncoded("{token}\n\u{7F}") == "%7Btoken%7D%0A%7F")
    }

    @Test("multi-byte characters are encoded byte by byte of their UTF-8 form")
    func multiByte() {
        #expect(PathSegment.percentEncoded("é") == "%C3%A9")
        #expect(PathSegment.percentEncoded("日本") == "%E6%97%A5%E6%9C%AC")
        #expect(PathSegment.percentEncoded("🔔") == "%F0%9F%94%94")
        // A decomposed é is two scalars, and each is encoded.
        #expect(PathSegment.percentEncoded("e\u{301}") == "e%CC%81")
    }

    @Test("the empty segment stays empty")
    func empty() {
        #expect(PathSegment.percentEncoded("") == "")
    }
}
