// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import IntrapushSupport
import Testing

@Suite("Read receipts: what fills read_receipt_text is escaped as JSON")
struct ReadReceiptTemplateTests {
    @Test("a message id and a user name holding quotes, backslashes, controls or a leading combining mark give JSON that names them")
    func escaped() throws {
        let template = ReadReceiptTemplate(
            text: #"{"type":"read","id":"{message_id}","by":"{user}","read_at":{read_at}}"#, idField: "rid",
            maximumSize: 4096, timeToLive: nil)
        for (messageID, user) in [("m\"1\\", "al\tice"), ("\u{301}m", "\u{301}bob"), ("😀\n", "é\u{1}")] {
            let receipt = try template.receipt(messageID: messageID, user: user, readAt: 42)
            let parsed = JSONValue.parse(receipt.text)
            #expect(parsed?["id"] == .string(messageID), "\(receipt.text.debugDescription)")
            #expect(parsed?["by"] == .string(user))
            #expect(parsed?["read_at"] == .number("42"))
            #expect(parsed?["rid"] == .string(receipt.id))
        }
    }
}
