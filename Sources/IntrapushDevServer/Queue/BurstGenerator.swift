// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Generates the payloads of `POST /push/burst`, fast enough that the socket, not the generator,
/// sets the pace of a burst.
///
/// Each payload is `{"id":"<prefix><seq>","title":"Burst <seq>","body":"xxx…"}`, its body padded so
/// that the whole payload is about `size` bytes.
struct BurstGenerator {
    var prefix: String
    var size: Int

    /// The payloads for consecutive sequence numbers, with their message ids.
    ///
    /// All payloads share one allocation: they are written first and sliced afterwards, because
    /// slicing while still writing would copy the storage on every write.
    func makePayloads(
        firstSequenceNumber: Int, count: Int, allocator: ByteBufferAllocator
    ) -> [(payload: ByteBuffer, messageID: String)] {
        let escapedPrefix = JSONText.escaped(prefix)
        var storage = allocator.buffer(capacity: count * max(size, 64))
        var ends: [Int] = []
        ends.reserveCapacity(count)
        for sequenceNumber in firstSequenceNumber..<(firstSequenceNumber + count) {
            let start = storage.writerIndex
            let number = String(sequenceNumber)
            storage.writeStaticString(#"{"id":""#)
            storage.writeString(escapedPrefix)
            storage.writeString(number)
            storage.writeStaticString(#"","title":"Burst "#)
            storage.writeString(number)
            storage.writeStaticString(#"","body":""#)
            let written = storage.writerIndex - start
            storage.writeRepeatingByte(UInt8(ascii: "x"), count: max(0, size - written - 2))
            storage.writeStaticString(#""}"#)
            ends.append(storage.writerIndex)
        }
        var payloads: [(payload: ByteBuffer, messageID: String)] = []
        payloads.reserveCapacity(count)
        var start = 0
        for (offset, end) in ends.enumerated() {
            let payload = storage.getSlice(at: start, length: end - start)!
            payloads.append((payload, prefix + String(firstSequenceNumber + offset)))
            start = end
        }
        return payloads
    }
}
