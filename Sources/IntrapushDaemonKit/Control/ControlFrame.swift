import IntrapushInterface
import IntrapushStore
import NIOCore

/// One request on the control socket, as `ControlRequestHeader` (IntrapushInterface) defines it.
struct ControlFrame: Equatable {
    var verb: String
    var argument: String
    var body: ByteBuffer
}

/// A request refused before its body was read: the answer says why, then the connection closes.
struct ControlRefusal: Error, Equatable {
    var answer: ControlAnswer

    static let unreadable = ControlRefusal(
        answer: ControlAnswer(status: 64, body: "the request could not be read; is intrapush the same version as intrapushd?"))
}

/// Reads the one request a connection carries. The header is checked before any of the body
/// is kept: a verb the daemon does not know, a length beyond what the verb may carry, or a
/// body the shared budget has no room for is refused at once, so no client makes the daemon
/// buffer more than the limits allow. Bytes after the request are dropped unread.
struct ControlFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ControlFrame

    let admission: ControlAdmission
    /// `max_message_size` now (a reload may change it).
    let maximumMessageSize: () -> Int
    private var header: (verb: String, argument: String, length: Int)?
    private var reservedBytes = 0
    private var isFinished = false

    init(admission: ControlAdmission, maximumMessageSize: @escaping () -> Int) {
        self.admission = admission
        self.maximumMessageSize = maximumMessageSize
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard !isFinished else {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        if header == nil {
            guard let newline = buffer.readableBytesView.prefix(ControlRequestHeader.longest + 1).firstIndex(of: UInt8(ascii: "\n")) else {
                if buffer.readableBytes > ControlRequestHeader.longest { throw ControlRefusal.unreadable }
                return .needMoreData
            }
            let line = buffer.readString(length: newline - buffer.readerIndex) ?? ""
            buffer.moveReaderIndex(forwardBy: 1)
            header = try admit(line)
        }
        guard let (verb, argument, length) = header, let body = buffer.readSlice(length: length) else {
            return .needMoreData
        }
        isFinished = true
        context.fireChannelRead(wrapInboundOut(ControlFrame(verb: verb, argument: argument, body: body)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }

    mutating func decoderRemoved(context: ChannelHandlerContext) {
        admission.release(reservedBytes)
        reservedBytes = 0
    }

    /// The header's verb, argument and body length, once the limits allow that body.
    private mutating func admit(_ line: String) throws(ControlRefusal) -> (String, String, Int) {
        guard let (verb, argument, length) = ControlRequestHeader.parse(line) else { throw .unreadable }
        let maximumMessageSize = maximumMessageSize()
        guard let largest = admission.limits.largestBody(of: verb[...], maximumMessageSize: maximumMessageSize) else {
            throw ControlRefusal(answer: ControlAnswer(
                status: 64, body: "unknown request \(verb.prefix(32)); is intrapush the same version as intrapushd?"))
        }
        guard length <= largest else {
            if verb == "send" || verb == "request" {
                let refusal = OutboxRefusal.tooLarge(size: length, maximum: maximumMessageSize)
                throw ControlRefusal(answer: ControlAnswer(status: refusal.exitStatus, body: refusal.message))
            }
            throw ControlRefusal(answer: ControlAnswer(
                status: 64, body: "the request is \(length) bytes, more than the \(largest) bytes a \(verb) request may have"))
        }
        guard admission.reserve(length, maximumMessageSize: maximumMessageSize) else {
            throw ControlRefusal(answer: ControlAnswer(
                status: 75, body: "the daemon is receiving other large requests; nothing was done, try again"))
        }
        reservedBytes = length
        return (verb, argument, length)
    }
}

extension ControlAnswer {
    func encoded(allocator: ByteBufferAllocator) -> ByteBuffer {
        allocator.buffer(bytes: encoded)
    }
}
