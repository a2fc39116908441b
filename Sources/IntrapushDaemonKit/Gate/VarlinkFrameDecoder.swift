import NIOCore

/// Splits the byte stream into Varlink messages at their NUL terminators. The bytes of an
/// unfinished message are counted against the connection's longest message and the budget all
/// connections share before they are kept, so no peer makes the daemon buffer more than that.
struct VarlinkFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// Why the stream cannot go on.
    enum Refusal: Error, Equatable {
        case tooLong(limit: Int)
        case budgetExhausted
    }

    let admission: GateAdmission
    /// `max_message_size` now (a reload may change it).
    let maximumMessageSize: () -> Int
    /// What this connection holds of the budget; the connection's handler gives back what is
    /// left when it closes, however the decoder ended.
    let reservation: BufferReservation
    /// Where the search for a NUL goes on: what was searched already holds none.
    private var searched = 0

    init(admission: GateAdmission, reservation: BufferReservation, maximumMessageSize: @escaping () -> Int) {
        self.admission = admission
        self.reservation = reservation
        self.maximumMessageSize = maximumMessageSize
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        let maximum = maximumMessageSize()
        let longest = admission.limits.longestMessage(maximumMessageSize: maximum)
        if let end = view.dropFirst(searched).firstIndex(of: 0) {
            let length = end - view.startIndex
            // The same ceiling whether the NUL came in this read or a later one.
            guard length <= longest else { throw Refusal.tooLong(limit: longest) }
            let message = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            searched = 0
            settle(buffered: buffer.readableBytes)
            context.fireChannelRead(wrapInboundOut(message))
            return .continue
        }
        searched = view.count
        guard view.count <= longest else { throw Refusal.tooLong(limit: longest) }
        if view.count > reservation.bytes {
            guard admission.reserve(view.count - reservation.bytes, maximumMessageSize: maximum) else { throw Refusal.budgetExhausted }
            reservation.bytes = view.count
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        settle(buffered: 0)
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }

    /// Gives back what the budget holds beyond the bytes still buffered.
    private func settle(buffered: Int) {
        reservation.settle(buffered: buffered, admission: admission)
    }
}

/// The bytes of the budget one connection holds. Confined to the event loop.
final class BufferReservation: @unchecked Sendable {
    var bytes = 0

    func settle(buffered: Int, admission: GateAdmission) {
        guard bytes > buffered else { return }
        admission.release(bytes - buffered)
        bytes = buffered
    }
}
