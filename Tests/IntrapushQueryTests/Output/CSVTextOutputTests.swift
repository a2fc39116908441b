// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushQuery

@Suite("CSV records")
struct CSVTextOutputTests {
    func record(_ fields: [String?]) -> String {
        var output = ""
        CSVText.appendRecord(fields, to: &output)
        return output
    }

    @Test("plain fields are written as they are, the record ends in CRLF")
    func plain() {
        #expect(record(["1", "abc", "告警"]) == "1,abc,告警\r\n")
    }

    @Test("nil is an empty unquoted field, an empty string is quoted")
    func nilAndEmpty() {
        #expect(record([nil, "x", nil]) == ",x,\r\n")
        #expect(record(["", "x"]) == "\"\",x\r\n")
    }

    @Test("commas, quotes, CR, LF and edge spaces force quoting; quotes are doubled")
    func quoting() {
        #expect(record(["a,b"]) == "\"a,b\"\r\n")
        #expect(record(["say \"hi\""]) == "\"say \"\"hi\"\"\"\r\n")
        #expect(record(["l1\r\nl2"]) == "\"l1\r\nl2\"\r\n")
        #expect(record(["l1\nl2", "x\ry"]) == "\"l1\nl2\",\"x\ry\"\r\n")
        #expect(record([" lead", "trail ", "mid dle"]) == "\" lead\",\"trail \",mid dle\r\n")
        #expect(record([#"{"k":"v"}"#]) == #""{""k"":""v""}""# + "\r\n")
        #expect(Array(record(["\"\u{301}"]).utf8) == Array("\"\"\"\u{301}\"\r\n".utf8))
    }

    @Test("records append one after another")
    func appends() {
        var output = ""
        CSVText.appendRecord(["id", "title"], to: &output)
        CSVText.appendRecord(["1", nil], to: &output)
        #expect(output == "id,title\r\n1,\r\n")
    }
}
