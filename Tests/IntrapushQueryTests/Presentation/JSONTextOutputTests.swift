// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import IntrapushQuery
import IntrapushSupport

@Suite("JSON string literals")
struct JSONTextOutputTests {
    @Test("quotes and backslashes are escaped")
    func quotesAndBackslashes() {
        #expect(JSONText.quoted("plain") == #""plain""#)
        #expect(JSONText.quoted(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(JSONText.quoted(#"{"k":"v"}"#) == #""{\"k\":\"v\"}""#)
        #expect(JSONText.quoted("") == #""""#)
    }

    @Test("controls use the short forms or \\u00XX")
    func controls() {
        #expect(JSONText.quoted("\n\r\t\u{8}\u{C}") == #""\n\r\t\b\f""#)
        #expect(JSONText.quoted("\u{0}\u{1F}\u{1B}[0m") == #""\u0000\u001f\u001b[0m""#)
        #expect(JSONText.quoted("\u{7F}") == "\"\u{7F}\"")
    }

    @Test("CJK, emoji and combining marks pass through as UTF-8")
    func unicode() {
        #expect(JSONText.quoted("告警服务器 👨‍👩‍👧 é") == "\"告警服务器 👨‍👩‍👧 é\"")
        // A quote with a combining mark is one Character; escaping must still split them.
        #expect(Array(JSONText.quoted("\"\u{301}").utf8) == Array("\"\\\"\u{301}\"".utf8))
    }

    @Test("appends after what the output already holds")
    func appends() {
        var output = "{\"title\":"
        JSONText.appendQuoted("a\nb", to: &output)
        output += "}"
        #expect(output == #"{"title":"a\nb"}"#)
    }

    @Test("a JSON parser reads back every ASCII character and some Unicode")
    func roundTrip() throws {
        let ascii = String(String.UnicodeScalarView((0..<128).map { Unicode.Scalar(UInt8($0)) }))
        for text in [ascii, "告警\n\"服务器\"\\", "😀\u{1B}x", "\"\u{301}\\\u{301}"] {
            let decoded = try JSONDecoder().decode([String].self, from: Data(("[" + JSONText.quoted(text) + "]").utf8))
            #expect(decoded == [text])
        }
    }
}
