// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOEmbedded
import NIOWebSocket

extension EmbeddedChannel {
    /// The frames written so far, as a server reads them: the bytes that left the pipeline's frame
    /// encoder (or the handler's own framing), through NIO's server-side frame decoder. Read each
    /// frame's `unmaskedData`.
    func writtenFrames() throws -> [WebSocketFrame] {
        let server = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder()))
        while let bytes = try readOutbound(as: ByteBuffer.self) {
            try server.writeInbound(bytes)
        }
        var frames: [WebSocketFrame] = []
        while let frame = try server.readInbound(as: WebSocketFrame.self) {
            frames.append(frame)
        }
        return frames
    }
}
