// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import Testing

@Suite("A message for the server: checked, its id found or added")
struct OutboxMessageTests {
    func prepare(_ text: String, maximumSize: Int = 1 << 20) throws(OutboxRefusal) -> OutboxMessage {
        try OutboxMessage.prepare(text, idField: "id", maximumSize: maximumSize, makeID: { "u-1" })
    }

    @Test("the caller's string id is kept, the text byte for byte")
    func givenID() throws {
        #expect(try prepare(#" {"id":"a/1", "x":[1,{"y":null}]} "#) == OutboxMessage(id: "a/1", text: #" {"id":"a/1", "x":[1,{"y":null}]} "#))
    }

    @Test("without an id one is added at the front")
    func addedID() throws {
        #expect(try prepare(#"{"x":1}"#).text == #"{"id":"u-1","x":1}"#)
        #expect(try prepare("{ }").text == #"{"id":"u-1"}"#)
        #expect(OutboxMessage.newID().count == 36)
    }

    @Test("refused: not an object (65), an id that is not a string (65), too large (65)")
    func refused() {
        for text in ["[1]", "\"s\"", "{", "", #"{"a":1} x"#] {
            #expect(throws: OutboxRefusal.notAnObject) { try prepare(text) }
        }
        #expect(throws: OutboxRefusal.idNotAString(field: "id")) { try prepare(#"{"id":5}"#) }
        #expect(throws: OutboxRefusal.idNotAString(field: "id")) { try prepare(#"{"id":null}"#) }
        #expect(throws: OutboxRefusal.emptyID(field: "id")) { try prepare(#"{"id":""}"#) }
        #expect(throws: OutboxRefusal.tooLarge(size: 29, maximum: 10)) { try prepare(#"{"x":"0123456789"}"#, maximumSize: 10) }
        #expect(OutboxRefusal.duplicate(id: "x").exitStatus == 75)
        #expect(OutboxRefusal.notAnObject.exitStatus == 65)
    }
}
