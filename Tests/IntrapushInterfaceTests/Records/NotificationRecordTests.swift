// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushQuery
@testable import IntrapushInterface

@Suite struct NotificationRecordTests {
    static let record = NotificationRecord(
        id: 42, messageID: "m-42", receivedAt: 1_763_773_323_456, payload: "{\"a\":\"x,\\\"y\\\"\"}\n",
        title: "Disk \"full\"", body: nil, readAt: nil)

    /// --json: exactly the contract's keys in its order, RFC 3339 UTC with milliseconds, nulls.
    @Test("JSON line keys, order, time format and nulls")
    func jsonLine() {
        var line = ""
        Self.record.appendJSONLine(to: &line)
        #expect(line == #"{"id":42,"message_id":"m-42","received_at":"2025-11-22T01:02:03.456Z","title":"Disk \"full\"","body":null,"payload":"{\"a\":\"x,\\\"y\\\"\"}\n","read_at":null,"priority":null,"link":null,"recipients":null}"# + "\n")
        var read = Self.record
        read.readAt = 1_763_773_323_000
        line = ""
        read.appendJSONLine(to: &line)
        #expect(line.contains(#""read_at":"2025-11-22T01:02:03.000Z","#))
    }

    /// CSV: RFC 4180 quoting of quotes, commas and newlines; null is an empty field.
    @Test("CSV record quoting")
    func csvRecord() {
        var text = ""
        Self.record.appendCSVRecord(to: &text)
        #expect(text == "42,m-42,2025-11-22T01:02:03.456Z,\"Disk \"\"full\"\"\",,\"{\"\"a\"\":\"\"x,\\\"\"y\\\"\"\"\"}\n\",,,,\r\n")
        #expect(NotificationRecord.fieldNames == [
            "id", "message_id", "received_at", "title", "body", "payload", "read_at", "priority", "link", "recipients",
        ])
    }
}
