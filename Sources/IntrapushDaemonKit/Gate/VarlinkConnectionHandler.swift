import IntrapushInterface
import IntrapushSupport
import Logging
import NIOCore

/// One connection to the local API: reads its calls one after another (a few may be pipelined),
/// hands each to the `Gate` with the caller the kernel named, and writes the replies. A stream's
/// next replies are produced only while the peer reads (`whenWritable`), so nothing piles up in
/// the daemon for a reader that stopped.
final class VarlinkConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let gate: Gate
    let identity: PeerIdentity?
    let admission: GateAdmission
    let reservation: BufferReservation
    /// The caller's names, once looked up (off the loop) for the first call that needs them.
    var caller: Caller?
    private var context: ChannelHandlerContext?
    private var isAdmitted = false
    private var pending: [VarlinkCall] = []
    /// The call being answered; its replies go out while it is set.
    private(set) var current: VarlinkCall?
    private var writabilityWaiters: [() -> Void] = []
    private var deadline: Scheduled<Void>?
    private var closeHandlers: [Int: () -> Void] = [:]
    private var nextCloseHandler = 0

    init(gate: Gate, identity: PeerIdentity?, admission: GateAdmission, reservation: BufferReservation) {
        self.gate = gate
        self.identity = identity
        self.admission = admission
        self.reservation = reservation
    }

    // MARK: What the gate uses

    var isOpen: Bool { context?.channel.isActive ?? false }
    var isWritable: Bool { context?.channel.isWritable ?? false }

    /// Writes a reply of the current call; the last one (`continues` false) ends the call, and
    /// the next pipelined call starts.
    func send(_ reply: VarlinkReply) {
        guard let context, current != nil else { return }
        if current?.oneway != true {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: reply.encoded)), promise: nil)
        }
        guard !reply.continues else { return }
        current = nil
        armDeadline(gate.limits.idleDeadline)
        startNext()
    }

    func fail(_ error: VarlinkError) { send(.failure(error)) }

    /// Runs `body` once the peer has read enough of what was written (at once if it has).
    func whenWritable(_ body: @escaping () -> Void) {
        guard isOpen else { return }
        if isWritable { body() } else { writabilityWaiters.append(body) }
    }

    /// Runs `body` when the connection closes (a subscription ends with it); the key takes it
    /// back once it is no longer needed (a request answered), so a long-lived connection
    /// holds only what is still open.
    @discardableResult
    func onClose(_ body: @escaping () -> Void) -> Int {
        nextCloseHandler += 1
        closeHandlers[nextCloseHandler] = body
        return nextCloseHandler
    }

    func cancelOnClose(_ key: Int) {
        closeHandlers[key] = nil
    }

    func close() {
        context?.close(promise: nil)
    }

    // MARK: The channel

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        isAdmitted = admission.connectionOpened()
        guard isAdmitted, identity != nil else {
            // Said once, in the protocol, then closed: nothing of this connection is kept.
            let error = identity == nil
                ? Gate.permissionDenied("the daemon could not learn who is calling; connect over its Unix socket")
                : VarlinkError("io.intrapush.Daemon.Busy", ["message": .string(
                    "intrapushd has \(admission.limits.maximumConnections) local connections open already; try again")])
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: VarlinkReply.failure(error).encoded)))
                .whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            return
        }
        armDeadline(gate.limits.idleDeadline)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        reservation.settle(buffered: 0, admission: admission)
        if isAdmitted { admission.connectionClosed() }
        isAdmitted = false
        writabilityWaiters = []
        pending = []
        let handlers = closeHandlers.values
        closeHandlers = [:]
        for handler in handlers { handler() }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard isAdmitted else { return }
        let message = unwrapInboundIn(data)
        switch message.readableBytesView.withContiguousStorageIfAvailable({ VarlinkCall.parse($0) })
            ?? VarlinkCall.parse(Array(message.readableBytesView))
        {
        case .success(let call):
            guard pending.count < gate.limits.maximumPipelinedCalls else {
                refuseAndClose(VarlinkError("io.intrapush.Daemon.Busy", ["message": .string(
                    "more than \(gate.limits.maximumPipelinedCalls) calls wait on this connection; wait for the answers")]))
                return
            }
            pending.append(call)
            startNext()
        case .failure(let malformed):
            let reason = switch malformed {
            case .notJSON: "the message is not one JSON object (or nests too deep)"
            case .notACall(let why): why
            }
            refuseAndClose(Gate.invalidMessage(reason))
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let waiters = writabilityWaiters
            writabilityWaiters = []
            for waiter in waiters { waiter() }
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error as? VarlinkFrameDecoder.Refusal {
        case .tooLong(let limit)?:
            refuseAndClose(Gate.invalidMessage("a message is longer than the \(limit) bytes one may have"))
        case .budgetExhausted?:
            refuseAndClose(VarlinkError("io.intrapush.Daemon.Busy", ["message": .string(
                "the daemon is receiving other long messages; try again")]))
        case nil:
            context.close(promise: nil)
        }
    }

    // MARK: Calls

    private func startNext() {
        guard current == nil, !pending.isEmpty, isOpen else { return }
        let call = pending.removeFirst()
        current = call
        deadline?.cancel()
        deadline = nil
        if call.upgrade {
            return fail(Gate.invalidMessage("intrapushd takes no protocol upgrade"))
        }
        gate.handle(call, on: self)
    }

    /// Writes `error` outside any call, then closes: the stream can no longer be read.
    private func refuseAndClose(_ error: VarlinkError) {
        guard let context, context.channel.isActive else { return }
        pending = []
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: VarlinkReply.failure(error).encoded)))
            .whenComplete { _ in channel.close(promise: nil) }
    }

    /// Closes a connection that sits with no call for `amount` (or whose message never ends).
    private func armDeadline(_ amount: TimeAmount) {
        deadline?.cancel()
        guard let context else { return }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: amount) { channel.close(promise: nil) }
    }
}

@available(*, unavailable)
extension VarlinkConnectionHandler: Sendable {}
