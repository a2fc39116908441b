// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Varlink's framing, the layer under the protocol: the bytes of a connection split into
/// messages at the NUL that ends each. Pure: the connection's handler appends what it reads
/// (having set it aside in the budget all connections share) and takes one message at a time,
/// when it is ready for the next call.
struct VarlinkFraming {
    /// Why the stream cannot go on.
    enum Refusal: Error, Equatable {
        /// A message is longer than `limit` bytes, counted before the NUL that would end it.
        case tooLong(limit: Int)
    }

    private var buffer = ByteBuffer()
    /// Where the search for a NUL goes on: what lies before it holds none.
    private var searched = 0

    /// The bytes held, taken or not.
    var bufferedBytes: Int { buffer.readableBytes }

    mutating func append(_ bytes: inout ByteBuffer) {
        buffer.writeBuffer(&bytes)
    }

    /// The next whole message without its NUL, `nil` until one has arrived.
    mutating func nextMessage(longest: Int) throws(Refusal) -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let end = view.dropFirst(searched).firstIndex(of: 0) else {
            searched = view.count
            guard view.count <= longest else { throw .tooLong(limit: longest) }
            return nil
        }
        let length = end - view.startIndex
        // The same ceiling whether the NUL came in this read or a later one.
        guard length <= longest else { throw .tooLong(limit: longest) }
        let message = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        searched = 0
        // What was taken is given back once it outweighs what is left, not at every message:
        // many small pipelined calls must not copy the rest each time.
        if buffer.readerIndex > 65536 && buffer.readerIndex > buffer.readableBytes { buffer.discardReadBytes() }
        return message
    }
}
