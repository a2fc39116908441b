// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Masked client text frames (RFC 6455 §5.2, §5.3) written one after another into one buffer.
///
/// A batch's acknowledgements leave this way as one buffer in one write. Through the frame
/// encoder each was a frame, a header buffer of its own and two I/O vectors: at one per push,
/// more of a burst's time than decoding the push itself.
enum MaskedTextFrames {
    /// Appends `payload` as one final text frame masked with `key` (four bytes, network order).
    static func append(_ payload: ByteBuffer, maskedWith key: UInt32, to buffer: inout ByteBuffer) {
        let count = payload.readableBytes
        buffer.writeInteger(UInt8(0x81))  // FIN, text
        switch count {
        case ..<126:
            buffer.writeInteger(UInt8(0x80 | count))
        case ..<65536:
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(count))
        default:
            buffer.writeInteger(UInt8(0x80 | 127))
            buffer.writeInteger(UInt64(count))
        }
        buffer.writeInteger(key)
        payload.withUnsafeReadableBytes { source in
            _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { target in
                withUnsafeBytes(of: key.bigEndian) { mask in
                    for index in 0..<count { target[index] = source[index] ^ mask[index & 3] }
                }
                return count
            }
        }
    }
}
