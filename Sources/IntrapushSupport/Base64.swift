// SPDX-License-Identifier: Apache-2.0

/// Base64 (RFC 4648 §4): a proxy's `Basic` credentials, `tls_pins`.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                output.append(position <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(position)) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Padded base64 only, nothing else (no spaces, no URL alphabet); `nil` otherwise.
    package static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        var index = 0
        while index < characters.count {
            let quad = characters[index..<index + 4]
            let padding = quad.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard padding <= 2, index + 4 == characters.count || padding == 0 else { return nil }
            var value: UInt32 = 0
            for (offset, character) in quad.enumerated() {
                let digit: UInt32
                if offset >= 4 - padding {
                    digit = 0
                } else if let position = alphabet.firstIndex(of: character) {
                    digit = UInt32(position)
                } else {
                    return nil
                }
                value = value << 6 | digit
            }
            let decoded = [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            output += decoded.prefix(3 - padding)
            index += 4
        }
        return output
    }
}
