// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// Finds a member of a JSON object payload as the daemon reads an id: a string's value or a
/// number's exact digits.
enum MessageIDProbe {
    /// The payload's `field` as a string; `nil` when it is not a JSON object or has no usable id.
    static func messageID(in payload: [UInt8], field: String = "id") -> String? {
        switch payload.withUnsafeBufferPointer({ JSONValue.parse($0) })?[field] {
        case .string(let text)?, .number(let text)?: text
        default: nil
        }
    }

    /// The string member `field` of a JSON object text: a client's message's id.
    static func stringMember(_ field: String, in text: String) -> String? {
        JSONValue.parse(text)?[field]?.string
    }
}
