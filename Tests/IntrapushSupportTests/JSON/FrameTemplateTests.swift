// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushSupport

@Suite("Frame templates: {id} and {token} filled for the template's shape")
struct FrameTemplateTests {
    /// Every id a server may send that a template must carry: quotes, backslashes, every control
    /// character, non-ASCII text, an emoji, and a few plain ones.
    static let awkwardIDs: [String] = ["plain-1", "", "a\"b", #"back\slash"#, "tab\there", "line\nbreak", "\r\n",
        "café", "中文", "😀 smile", "\u{7F}del", "\u{2028}\u{2029}", #"\"#, #"""#, "{id}", "0",
        "\u{0301}starts with a combining mark", "ends with one\u{0301}", "👩\u{200D}💻"]
        + (0x00...0x1F).map { "c" + String(UnicodeScalar(UInt8($0))) + "c" }

    static func parse(_ frame: String) -> JSONValue? { JSONValue.parse(frame) }

    static func read(_ template: FrameTemplate, _ frame: String) -> String? {
        Array(frame.utf8).withUnsafeBytes { template.value(in: $0) }
    }

    @Test("a JSON-shaped template with {id} in a string: every id gives JSON whose member is exactly that id")
    func inString() {
        let template = FrameTemplate(#"{"type":"ack","id":"{id}"}"#, placeholder: "{id}")
        #expect(template.slots == [.inString])
        for id in Self.awkwardIDs {
            let frame = template.filled(with: .string(id))
            #expect(Self.parse(frame)?["id"] == .string(id), "\(frame.debugDescription) does not name \(id.debugDescription)")
            #expect(Self.parse(frame)?["type"] == .string("ack"))
            #expect(Self.read(template, frame) == (id.isEmpty ? nil : id), "read back from \(frame.debugDescription)")
        }
        #expect(template.filled(with: .string("a\"b\\c\t\u{01}é😀")) == #"{"type":"ack","id":"a\"b\\c\t\u0001é😀"}"#,
                "escaped as JSONText does: short forms, \\u00XX for the other controls, non-ASCII kept as UTF-8")
        #expect(template.filled(with: .number("12")) == #"{"type":"ack","id":"12"}"#, "a number's digits, as the string's content")
        #expect(template.filled(with: .null) == #"{"type":"ack","id":""}"#, "no id: the empty string")
    }

    @Test("{id} outside a string is a JSON value: a number's exact digits, a string literal, null without an id")
    func asValue() {
        let template = FrameTemplate(#"{"ack": {id} }"#, placeholder: "{id}")
        #expect(template.slots == [.value])
        #expect(template.filled(with: .number("12345678901234567890")) == #"{"ack": 12345678901234567890 }"#)
        #expect(template.filled(with: .number("-1.50e3")) == #"{"ack": -1.50e3 }"#)
        #expect(template.filled(with: .string("12")) == #"{"ack": "12" }"#, "a string id stays a string")
        #expect(template.filled(with: .null) == #"{"ack": null }"#)
        for id in Self.awkwardIDs {
            let frame = template.filled(with: .string(id))
            #expect(Self.parse(frame)?["ack"] == .string(id), "\(frame.debugDescription)")
            #expect(Self.read(template, frame) == (id.isEmpty ? nil : id), "an empty id is read only where allowed")
        }
        #expect(Self.read(template, #"{"ack": 42 }"#) == "42")
        #expect(Self.read(template, #"{"ack": [1] }"#) == nil, "neither a string nor a number")
    }

    @Test("every placeholder of a template is filled; each in its own way")
    func several() {
        let template = FrameTemplate(#"["{id}", {id}, "x{id}y"]"#, placeholder: "{id}")
        #expect(template.slots == [.inString, .value, .inString])
        let frame = template.filled(with: .string("q\"1"))
        #expect(Self.parse(frame) == .array([.string("q\"1"), .string("q\"1"), .string("xq\"1y")]))
        #expect(Self.read(template, frame) == nil, "a value is read back from a template with one placeholder only")
    }

    @Test("a template that is not JSON takes the id as it is, as before")
    func raw() {
        for text in ["ack {id}", "received message {id}", "{id}", " {id} ", "-{id}", #"{"id":"{id}""#, #"{"id":"\{id}"}"#,
                     "received message", "[2{id}]", #"{"n":{id}5}"#, #"["x"{id}]"#] {
            let template = FrameTemplate(text, placeholder: "{id}")
            #expect(!template.isJSONShaped, "\(text)")
            for id in Self.awkwardIDs {
                #expect(template.filled(with: .string(id)) == text.replacing("{id}", with: id))
            }
            #expect(template.filled(with: .null) == text.replacing("{id}", with: ""))
        }
        let ack = FrameTemplate("received message {id}", placeholder: "{id}")
        #expect(Self.read(ack, "received message job \"42\"") == "job \"42\"")
        #expect(Self.read(ack, "received message ") == nil, "no id at all")
        #expect(Self.read(ack, "received messages") == nil)
        #expect(!FrameTemplate("received message", placeholder: "{id}").hasPlaceholder)
    }

    @Test("a template that is one JSON string escapes what it carries")
    func jsonString() {
        let template = FrameTemplate(#""ack {id}""#, placeholder: "{id}")
        #expect(template.slots == [.inString])
        #expect(Self.parse(template.filled(with: .string("a\"b"))) == .string("ack a\"b"))
    }

    @Test("existing JSON-shaped templates with ordinary ids give the same bytes as plain replacement")
    func unchangedBytes() {
        let template = FrameTemplate(#"{"type":"ack","id":"{id}"}"#, placeholder: "{id}")
        for id in ["p1", "job-42", "4f6c2f0e-2b7a-4b8e-9c61-0f2d3a4b5c6d", "café"] {
            #expect(template.filled(with: .string(id)) == template.text.replacing("{id}", with: id))
        }
        let hello = FrameTemplate(#"{"type":"hello","token":"{token}"}"#, placeholder: "{token}")
        #expect(hello.filled(with: .string("good-token")) == #"{"type":"hello","token":"good-token"}"#)
        #expect(hello.filled(with: .string(#"t"k\n"#)) == #"{"type":"hello","token":"t\"k\\n"}"#)
    }

    @Test("a text is a number only when it is exactly a JSON number")
    func numberOrString() {
        #expect(JSONValue.numberOrString("12") == .number("12"))
        #expect(JSONValue.numberOrString("-0.5e3") == .number("-0.5e3"))
        for text in ["012", " 12", "12 ", "1_000", "abc", "", "true", "null", "\"1\""] {
            #expect(JSONValue.numberOrString(text) == .string(text), "\(text)")
        }
    }
}
