// SPDX-License-Identifier: Apache-2.0

/// Where JSON text is written as bytes, for output that is no `String`: a reply goes straight
/// into the network buffer it is sent from, encoded once.
package protocol JSONOutput {
    /// Appends UTF-8 bytes as they are.
    mutating func write(bytes: UnsafeRawBufferPointer)
    /// Appends exactly `count` bytes, which `body` writes.
    mutating func write(count: Int, _ body: (inout ByteWriter) -> Void)
}

extension JSONOutput {
    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension JSONValue {
    /// The compact JSON text `text` gives, written to `output`.
    package func write<Output: JSONOutput>(to output: inout Output) {
        switch self {
        case .null: output.write("null")
        case .bool(let value): output.write(value ? "true" : "false")
        case .number(let text): output.write(text)
        case .string(let text): JSONText.writeQuoted(text, to: &output)
        case .array(let elements):
            output.write("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { output.write(",") }
                element.write(to: &output)
            }
            output.write("]")
        case .object(let members):
            output.write("{")
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.write(",") }
                JSONText.writeQuoted(key, to: &output)
                output.write(":")
                members[key]!.write(to: &output)
            }
            output.write("}")
        }
    }
}

extension JSONText {
    /// `appendQuoted`'s literal, written to `output` in one pass of exactly its length.
    package static func writeQuoted<Output: JSONOutput>(_ text: String, to output: inout Output) {
        var text = text
        text.withUTF8 { bytes in
            var length = 2
            for byte in bytes { length += escapedLength(byte) }
            output.write(count: length) { writer in
                writer.write(quote)
                for byte in bytes { writeEscaped(byte, to: &writer) }
                writer.write(quote)
            }
        }
    }
}
