// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import Testing

@testable import IntrapushDaemonKit
import IntrapushConfiguration

@Suite("Push decoder")
struct PushDecoderTests {
    let decoder = PushDecoder(idField: "id")

    @Test("a JSON object gives id, title and body")
    func object() {
        let push = decoder.decode(text: #"{"id":"m-1","title":"Hi","body":"there","extra":[1,2]}"#, receivedAt: 5)
        #expect(push.messageID == "m-1")
        #expect(push.title == "Hi")
        #expect(push.body == "there")
        #expect(push.receivedAt == 5)
        #expect(push.payload == .text(#"{"id":"m-1","title":"Hi","body":"there","extra":[1,2]}"#))
    }

    @Test("body falls back to content, then message")
    func bodyFallback() {
        #expect(decoder.decode(text: #"{"content":"c","message":"m"}"#, receivedAt: 0).body == "c")
        #expect(decoder.decode(text: #"{"message":"m"}"#, receivedAt: 0).body == "m")
        #expect(decoder.decode(text: #"{"body":null,"content":"c"}"#, receivedAt: 0).body == "c")
    }

    @Test("null members count as absent")
    func nulls() {
        let push = decoder.decode(text: #"{"id":null,"title":null,"body":null}"#, receivedAt: 0)
        #expect(push.messageID == nil)
        #expect(push.title == nil)
        #expect(push.body == nil)
    }

    @Test("a number id becomes its decimal text")
    func numberID() {
        #expect(decoder.decode(text: #"{"id":42}"#, receivedAt: 0).messageID == "42")
        #expect(decoder.decode(text: #"{"id":18446744073709551615}"#, receivedAt: 0).messageID == "18446744073709551615")
        #expect(decoder.decode(text: #"{"id":-7}"#, receivedAt: 0).messageID == "-7")
        #expect(decoder.decode(text: #"{"id":true}"#, receivedAt: 0).messageID == nil)
    }

    @Test("a number id is its exact text: ids beyond 64 bits or a double's precision stay apart")
    func exactNumberID() {
        let first = decoder.decode(text: #"{"id":18446744073709551617}"#, receivedAt: 0).messageID
        let second = decoder.decode(text: #"{"id":18446744073709551618}"#, receivedAt: 0).messageID
        #expect(first == "18446744073709551617")
        #expect(second == "18446744073709551618")
        #expect(decoder.decode(text: #"{"id":9007199254740993}"#, receivedAt: 0).messageID == "9007199254740993")
        #expect(decoder.decode(text: #"{"id":1e999}"#, receivedAt: 0).messageID == "1e999")
        #expect(decoder.decode(text: #"{"id":-0}"#, receivedAt: 0).messageID == "-0")
        #expect(decoder.decode(text: #"{"id":1.50}"#, receivedAt: 0).messageID == "1.50")
    }

    @Test("the id comes from id_field")
    func customIDField() {
        let custom = PushDecoder(idField: "uuid")
        let push = custom.decode(text: #"{"id":"no","uuid":"yes"}"#, receivedAt: 0)
        #expect(push.messageID == "yes")
    }

    @Test("text that is not JSON is stored as it came, with no fields")
    func notJSON() {
        for text in ["hello", "{not json", "", "{\"id\":\"x\"} trailing"] {
            let push = decoder.decode(text: text, receivedAt: 0)
            #expect(push.payload == .text(text))
            #expect(push.messageID == nil && push.title == nil && push.body == nil)
        }
    }

    @Test("a JSON array or scalar is not an object: no fields")
    func arrayAndScalar() {
        for text in [#"[{"id":"x"}]"#, "42", #""id""#] {
            let push = decoder.decode(text: text, receivedAt: 0)
            #expect(push.messageID == nil)
            #expect(push.payload == .text(text))
        }
    }

    @Test("a binary frame with valid UTF-8 is text; otherwise kept as bytes")
    func binary() {
        let utf8 = decoder.decode(binary: Array(#"{"id":"b1","title":"Bin"}"#.utf8), receivedAt: 0)
        #expect(utf8.payload == .text(#"{"id":"b1","title":"Bin"}"#))
        #expect(utf8.messageID == "b1")
        let bytes: [UInt8] = [0xFF, 0x00, 0xFE, 0x7B]
        let raw = decoder.decode(binary: bytes, receivedAt: 0)
        #expect(raw.payload == .binary(bytes))
        #expect(raw.messageID == nil)
    }

    @Test("the acknowledgement replaces {id}, empty without one")
    func acknowledgementText() {
        var settings = Configuration(host: "push.corp", org: "acme", token: Secret("t")).connection
        #expect(settings.isAcknowledgementFixed)
        #expect(settings.acknowledgement(for: "m-1") == "received message")
        settings.ackText = "ack {id}"
        #expect(!settings.isAcknowledgementFixed)
        #expect(settings.acknowledgement(for: "m-1") == "ack m-1")
        #expect(settings.acknowledgement(for: nil) == "ack ")
    }

    @Test("a string id and a number id of the same text are one id; the number is remembered for the acknowledgement")
    func numberAndStringIDs() {
        let number = decoder.decode(text: #"{"id":1}"#, receivedAt: 0)
        let string = decoder.decode(text: #"{"id":"1"}"#, receivedAt: 0)
        #expect(number.messageID == "1" && string.messageID == "1")
        #expect(number.messageIDIsNumber && !string.messageIDIsNumber)
        var settings = Configuration(host: "push.corp", org: "acme", token: Secret("t"), ackText: #"{"ack":{id}}"#).connection
        #expect(settings.acknowledgement(for: number.messageID, isNumber: number.messageIDIsNumber) == #"{"ack":1}"#)
        #expect(settings.acknowledgement(for: string.messageID, isNumber: string.messageIDIsNumber) == #"{"ack":"1"}"#)
        #expect(settings.acknowledgement(for: nil) == #"{"ack":null}"#)
        settings.ackText = #"{"type":"ack","id":"{id}"}"#
        #expect(settings.acknowledgement(for: number.messageID, isNumber: true) == #"{"type":"ack","id":"1"}"#)
    }
}

@Suite("Push decoder: priority, link, recipients")
struct PushDecoderModelTests {
    let decoder = PushDecoder(idField: "id")

    @Test("priority as ntfy's numbers and words; anything else is none")
    func priority() {
        let cases: [(String, NotificationPriority?)] = [
            ("1", .minimum), ("2", .low), ("3", .normal), ("4", .high), ("5", .urgent), (#""4""#, .high),
            (#""min""#, .minimum), (#""LOW""#, .low), (#""default""#, .normal), (#""normal""#, .normal),
            (#""high""#, .high), (#""urgent""#, .urgent), (#""max""#, .urgent), (#""critical""#, .urgent),
            ("0", nil), ("6", nil), ("4.0", nil), ("-4", nil), ("1e0", nil), (#""""#, nil), (#""highest""#, nil),
            ("true", nil), ("[4]", nil), ("null", nil),
        ]
        for (value, expected) in cases {
            #expect(decoder.decode(text: #"{"priority":"# + value + "}", receivedAt: 0).priority == expected, "\(value)")
        }
    }

    @Test("the link from click, else url")
    func link() {
        #expect(decoder.decode(text: #"{"click":"https://a","url":"https://b"}"#, receivedAt: 0).link == "https://a")
        #expect(decoder.decode(text: #"{"url":"https://b"}"#, receivedAt: 0).link == "https://b")
        #expect(decoder.decode(text: #"{"click":null,"url":"https://b"}"#, receivedAt: 0).link == "https://b")
        #expect(decoder.decode(text: #"{"click":7}"#, receivedAt: 0).link == nil)
    }

    @Test("recipients: a name or a list; a value that names no one fails closed, null is everyone")
    func recipients() {
        #expect(decoder.decode(text: #"{"to":"ann"}"#, receivedAt: 0).recipients == "ann")
        #expect(decoder.decode(text: #"{"to":["ann","ops"," x","-g","","a\nb"]}"#, receivedAt: 0).recipients == "ann\nops")
        #expect(decoder.decode(text: #"{"to":[]}"#, receivedAt: 0).recipients == "")
        #expect(decoder.decode(text: #"{"to":{"user":"ann"}}"#, receivedAt: 0).recipients == "")
        #expect(decoder.decode(text: #"{"to":["ann",1]}"#, receivedAt: 0).recipients == "")
        #expect(decoder.decode(text: #"{"to":42}"#, receivedAt: 0).recipients == "")
        #expect(decoder.decode(text: #"{"to":null}"#, receivedAt: 0).recipients == nil)
        #expect(decoder.decode(text: #"{"title":"x"}"#, receivedAt: 0).recipients == nil)
    }

    @Test("fields named by the configuration, even one another setting uses")
    func configuredFields() {
        let custom = PushDecoder(idField: "id", priorityField: "prio", linkField: "href", recipientsField: "title")
        let push = custom.decode(text: #"{"prio":"high","href":"https://h","title":"ann","priority":1}"#, receivedAt: 0)
        #expect(push.priority == .high)
        #expect(push.link == "https://h")
        #expect(push.recipients == "ann")
        #expect(push.title == "ann")
    }
}
