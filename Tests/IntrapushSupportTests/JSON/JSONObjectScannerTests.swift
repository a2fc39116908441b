// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import IntrapushSupport

@Suite("JSON object scanner")
struct JSONObjectScannerTests {
    static let keys: [[UInt8]] = ["id", "title", "body"].map { Array($0.utf8) }

    func scan(_ text: String) -> [JSONObjectScanner.Scalar?]? {
        Array(text.utf8).withUnsafeBufferPointer { JSONObjectScanner.scalars(of: Self.keys, in: $0) }
    }

    @Test("picks top-level strings and numbers, skips nested members of the same name")
    func topLevelOnly() {
        let found = scan(#" { "x": {"id":"inner","title":[1,{"body":2}]}, "id" : 12.5e3 , "title":"T", "body":null } "#)
        #expect(found == [.number("12.5e3"), .string("T"), .null])
    }

    @Test("an array of strings is kept; any other array, an object or a boolean is .other")
    func arrays() {
        #expect(scan(#"{"id":["a","b\u0063"],"title":[],"body":[ "x" , "y" ]}"#) == [.strings(["a", "bc"]), .strings([]), .strings(["x", "y"])])
        #expect(scan(#"{"id":["a",1],"title":[["a"]],"body":true}"#) == [.other, .other, .other])
        #expect(scan(#"{"id":["a",}"#) == nil)
        let many = "[" + (0..<1000).map { "\"\($0)\"" }.joined(separator: ",") + "]"
        #expect(scan(#"{"id":"# + many + "}")?[0] == .strings((0..<JSONObjectScanner.maximumStrings).map(String.init)))
    }

    @Test("escapes decode, surrogate pairs join, a lone surrogate becomes U+FFFD")
    func escapes() {
        let found = scan(#"{"title":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4E2D","body":"\ud83d\ude00 \ud800x"}"#)
        #expect(found?[1] == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t\u{E9}\u{4E2D}"))
        #expect(found?[2] == .string("\u{1F600} \u{FFFD}x"))
    }

    @Test("an escaped key matches its unescaped name; the last duplicate wins")
    func keys() {
        #expect(scan(#"{"t\u0069tle":"escaped","title":"plain","\u0069d":"e"}"#) == [.string("e"), .string("plain"), nil])
    }

    @Test("invalid texts are refused", arguments: [
        "", "{", "}", "[]", #"{"id":1,}"#, #"{"id" 1}"#, #"{id:1}"#, #"{"id":01}"#, #"{"id":1.}"#,
        #"{"id":-}"#, #"{"id":1e}"#, #"{"id":tru}"#, #"{"id":"a\x"}"#, #"{"id":"\u12"}"#,
        "{\"id\":\"tab\there\"}", #"{"a":[1,2}"#, #"{"a":{"b":1]}"#, #"{"id":1} {}"#, #"{"id":"unterminated}"#,
        #"{"a":[1 2]}"#, #"{"a":NaN}"#, #"{"a":+1}"#,
    ])
    func invalid(_ text: String) {
        #expect(scan(text) == nil)
    }

    @Test("nesting beyond the depth limit is refused, within it accepted")
    func depth() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(scan(#"{"a":\#(deep)}"#) == nil)
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(scan(#"{"a":\#(fine),"id":"ok"}"#) == [.string("ok"), nil, nil])
    }

    /// JSONDecoder checks a string or number only when something decodes it, so it accepts some
    /// damaged texts the scanner refuses; everything it refuses, the scanner refuses too.
    @Test("agrees with JSONDecoder on values; accepts every generated document, refuses what it refuses")
    func differential() throws {
        var random = SeededGenerator(seed: 7)
        var compared = 0
        for _ in 0..<3000 {
            let generated = JSONGenerator.object(depth: 0, using: &random)
            let isDamaged = Bool.random(using: &random)
            let text = isDamaged ? JSONGenerator.damaged(generated, using: &random) : generated
            let reference = try? JSONDecoder().decode([String: ReferenceMember].self, from: Data(text.utf8))
            let found = scan(text)
            if !isDamaged { #expect(found != nil, "refused a valid document: \(text)") }
            if reference == nil { #expect(found == nil, "accepted what JSONDecoder refuses: \(text)") }
            guard let found, let reference else { continue }
            for (position, key) in ["id", "title", "body"].enumerated() {
                let value = found[position].flatMap(\.comparable)
                // A lone surrogate: JSONDecoder drops the string, the scanner keeps it with U+FFFD.
                if reference[key]?.comparable == nil, value?.contains("\u{FFFD}") == true { continue }
                #expect(value == reference[key]?.comparable, "\(key) differs in \(text)")
            }
            compared += 1
        }
        #expect(compared > 1000)
    }
}

extension JSONObjectScanner.Scalar {
    /// Strings as they are, numbers as the double they denote.
    var comparable: String? {
        switch self {
        case .string(let value): return value
        case .number(let text): return Double(text).map { "\($0)" }
        case .strings, .null, .other: return nil
        }
    }
}

/// What the decoder used before the scanner took, as the reference.
private enum ReferenceMember: Decodable {
    case string(String)
    case number(Double)
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .other
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .other
        }
    }

    var comparable: String? {
        switch self {
        case .string(let value): return value
        case .number(let value): return "\(value)"
        case .other: return nil
        }
    }
}
