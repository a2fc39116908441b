// SPDX-License-Identifier: Apache-2.0

import CLinux
import NIOWebSocket

/// WebSocket masking keys from the kernel's random source, many per system call.
///
/// RFC 6455 §5.3 wants every client frame masked with a fresh key from a strong source of
/// entropy. `WebSocketMaskingKey.random()` makes one `getrandom` call per key, which was a
/// visible cost at one acknowledgement frame per push; one call here serves 256 frames.
struct MaskingKeySource {
    private var buffer = [UInt8](repeating: 0, count: 1024)
    private var offset = 1024

    mutating func next() -> WebSocketMaskingKey {
        withUnsafeBytes(of: nextBytes().bigEndian) { WebSocketMaskingKey($0)! }  // exactly four bytes
    }

    /// The next key as four bytes in network order.
    mutating func nextBytes() -> UInt32 {
        if offset == buffer.count { refill() }
        defer { offset += 4 }
        return buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian }
    }

    private mutating func refill() {
        let filled = buffer.withUnsafeMutableBytes { getrandom($0.baseAddress, $0.count, 0) }
        // getrandom does not fail short for requests this size once the pool is initialised;
        // should it ever, the keys come from the standard library one at a time instead.
        if filled != buffer.count {
            var generator = SystemRandomNumberGenerator()
            for index in buffer.indices { buffer[index] = UInt8.random(in: .min ... .max, using: &generator) }
        }
        offset = 0
    }
}
