// SPDX-License-Identifier: Apache-2.0

/// Writes bytes into a buffer that the caller sized exactly, for strings built in one allocation.
package struct ByteWriter {
    package let buffer: UnsafeMutableBufferPointer<UInt8>
    package var position = 0

    package init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    @inline(__always)
    package mutating func write(_ byte: UInt8) {
        buffer[position] = byte
        position += 1
    }

    /// Zero-padded decimal; a value too wide for `digits` saturates at all nines rather than wrapping.
    @inline(__always)
    package mutating func write(_ value: Int64, digits: Int) {
        var remaining = value
        var limit: Int64 = 1
        for _ in 0..<digits { limit *= 10 }
        remaining = min(max(remaining, 0), limit - 1)
        for index in stride(from: position + digits - 1, through: position, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        position += digits
    }
}
