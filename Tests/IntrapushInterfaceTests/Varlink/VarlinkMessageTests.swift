// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushInterface
@testable import IntrapushSupport

/// Varlink's messages as both ends read them: calls, replies, and the typed values of the
/// interfaces, strict for what a service takes and lenient for what a client reads.
@Suite("Varlink messages and typed values")
struct VarlinkMessageTests {
    @Test("a call survives its encoding; what is not a call is refused by name, never trusted")
    func calls() {
        let call = VarlinkCall(method: "io.intrapush.Notifications.List", parameters: ["limit": JSONValue(20)], more: true)
        #expect(VarlinkCall.parse(Array(call.encoded.dropLast())) == .success(call))
        #expect(call.interface == "io.intrapush.Notifications" && call.member == "List")
        #expect(VarlinkCall.parse(Array(#"{"method":"x""#.utf8)) == .failure(.notJSON))
        #expect(VarlinkCall.parse(Array(#"[1]"#.utf8)) == .failure(.notJSON))
        guard case .failure(.notACall) = VarlinkCall.parse(Array(#"{"parameters":{}}"#.utf8)) else { Issue.record("no method"); return }
        guard case .failure(.notACall) = VarlinkCall.parse(Array(#"{"method":"a.B","more":"yes"}"#.utf8)) else { Issue.record("bad flag"); return }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(JSONValue.parse(deep) == nil, "nesting past the limit is refused, not recursed into")
        #expect(JSONValue.parse(#""\ud83d\ude00 \u00e9""#) == .string("😀 é"))
        #expect(JSONValue.parse("12345678901234567890")?.integer == nil, "no digits rounded into an Int64")
    }

    @Test("replies and errors round-trip; a reply whose members have the wrong types is not one")
    func replies() {
        let reply = VarlinkReply.failure(VarlinkError("io.intrapush.Notifications.NoSuchNotification", ["id": JSONValue(7)]))
        #expect(Array(reply.encoded.dropLast()).withUnsafeBufferPointer { VarlinkReply.parse($0) } == reply)
        let streamed = VarlinkReply(parameters: ["count": JSONValue(1)], continues: true)
        #expect(Array(streamed.encoded.dropLast()).withUnsafeBufferPointer { VarlinkReply.parse($0) } == streamed)
        for text in [#"{"parameters":[]}"#, #"{"continues":"yes"}"#, #"{"error":7}"#] {
            #expect(Array(text.utf8).withUnsafeBufferPointer { VarlinkReply.parse($0) } == nil, "\(text)")
        }
    }

    @Test("each Varlink type reads only what it says: whole numbers, strings, objects, arrays, maps, null for optional")
    func typedValues() throws {
        #expect(try Int64(varlink: JSONValue(12), at: "n", strict: true) == 12)
        for value: JSONValue in [.number("12.5"), .number("1e3"), .number("18446744073709551616"), .string("12"), .null] {
            #expect(throws: VarlinkDecodingError(field: "n")) { try Int64(varlink: value, at: "n", strict: true) }
        }
        #expect(try Double(varlink: .number("1e3"), at: "f", strict: true) == 1000)
        #expect(try [String: Bool](varlink: .object(["a": .bool(true)]), at: "m", strict: true) == ["a": true])
        #expect(throws: VarlinkDecodingError(field: "m.a")) { try [String: Bool](varlink: .object(["a": .null]), at: "m", strict: true) }
        #expect(try [Int64?](varlink: .array([.null, JSONValue(1)]), at: "a", strict: true) == [nil, 1])
        #expect(try Int64?(varlink: .null, at: "o", strict: true) == nil)
        #expect(throws: VarlinkDecodingError(field: "o")) { try JSONValue(varlink: .array([]), at: "o", strict: true) }
    }
}
