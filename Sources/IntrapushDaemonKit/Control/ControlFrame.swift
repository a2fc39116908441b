import NIOCore

/// One request on the control socket: a header line `VERB ARGUMENT LENGTH`, then LENGTH bytes.
///
/// The answer has the same shape: `STATUS LENGTH`, then LENGTH bytes, STATUS being the exit
/// status the CLI takes (0, or sysexits(3)). README "How the CLI reaches the daemon" describes both.
struct ControlFrame: Equatable {
    var verb: String
    var argument: String
    var body: ByteBuffer
}

/// Splits the byte stream into `ControlFrame`s; a malformed header fails the channel.
struct ControlFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ControlFrame

    struct MalformedHeader: Error {}

    static let longestHeader = 256
    /// The largest body: `max_message_size` may be 64 MiB, and a list of ids to mark is text.
    static let largestBody = 64 << 20 + 4096

    private var header: (verb: String, argument: String, length: Int)?

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if header == nil {
            guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
                if buffer.readableBytes > Self.longestHeader { throw MalformedHeader() }
                return .needMoreData
            }
            let line = buffer.readString(length: newline - buffer.readerIndex) ?? ""
            buffer.moveReaderIndex(forwardBy: 1)
            let words = line.split(separator: " ", omittingEmptySubsequences: false)
            guard words.count == 3, let length = Int(words[2]), (0...Self.largestBody).contains(length) else {
                throw MalformedHeader()
            }
            header = (String(words[0]), String(words[1]), length)
        }
        guard let (verb, argument, length) = header, let body = buffer.readSlice(length: length) else {
            return .needMoreData
        }
        header = nil
        context.fireChannelRead(wrapInboundOut(ControlFrame(verb: verb, argument: argument, body: body)))
        return .continue
    }
}

/// The answer to one request.
struct ControlAnswer: Equatable {
    var status: Int32
    var body: String

    static func ok(_ body: String) -> Self { ControlAnswer(status: 0, body: body) }

    func encoded(allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: body.utf8.count + 16)
        buffer.writeString("\(status) \(body.utf8.count)\n")
        buffer.writeString(body)
        return buffer
    }
}
