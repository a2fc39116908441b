import IntrapushInterface
import NIOCore

/// What answers a Varlink server's calls: the application above the protocol.
protocol VarlinkService: AnyObject {
    /// `max_message_size` now (a reload may change it): the longest message follows from it.
    var maximumMessageSize: Int { get }
    /// Whether `identity` always gets in (counted, never refused for others' connections).
    func isPrivileged(_ identity: PeerIdentity) -> Bool
    /// A call of an admitted connection: answered on `context`, once or as a stream.
    func handle(_ call: VarlinkCall, context: VarlinkCallContext)
    /// The one call of a connection its owner had no room for: answered on `context` with an
    /// error of the call's own interface, after which the connection closes.
    func refuse(_ call: VarlinkCall, context: VarlinkCallContext)
    /// A connection broke the protocol and is closed unanswered (there is no call to answer).
    func closed(_ identity: PeerIdentity?, because reason: String)
    /// Whether `identity` may start another call now: what they handed over earlier (a oneway
    /// call's write included) is within their budget.
    func mayTakeCall(from identity: PeerIdentity) -> Bool
    /// Runs `body` once they may (at once when they may now).
    func whenMayTakeCall(from identity: PeerIdentity, _ body: @escaping () -> Void)
}

/// The protocol layer of one connection to the Varlink server, between the framing
/// (`VarlinkFraming`) and the application (`VarlinkService`): admits the connection by its
/// owner's share (`VarlinkAdmission`), answers its calls one at a time, each through its own
/// `VarlinkCallContext`, and reads nothing while a call is under way or its replies wait unread,
/// so pipelined calls wait in the socket, not in the daemon, and a caller who never reads holds
/// at most the write buffer's high-water mark of replies. Confined to the event loop.
final class VarlinkConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let service: any VarlinkService
    /// What the kernel said of the peer; `nil` when it did not (not a Unix socket): closed.
    let identity: PeerIdentity?
    let admission: VarlinkAdmission
    /// Every open connection of the server, for its stop.
    let connections: VarlinkConnections
    /// The caller's names, once looked up (off the loop) for the first call that needs them.
    var caller: Caller?
    private(set) var current: VarlinkCallContext?
    private var context: ChannelHandlerContext?
    private var decision: VarlinkAdmission.Decision?
    private var isPrivileged = false
    private var framing = VarlinkFraming()
    /// What this connection holds of the shared budget: the bytes its framing buffers.
    private var reservedBytes = 0
    private var isReadPending = false
    private var isTakingCalls = false
    /// Its person's writes fill their budget: no call is taken until some are done.
    private var isWaitingForBudget = false
    private var isClosing = false
    private var lastWrite: EventLoopFuture<Void>?
    private var writabilityWaiters: [() -> Void] = []
    private var deadline: Scheduled<Void>?

    init(service: any VarlinkService, identity: PeerIdentity?, admission: VarlinkAdmission, connections: VarlinkConnections) {
        self.service = service
        self.identity = identity
        self.admission = admission
        self.connections = connections
    }

    var isOpen: Bool { context?.channel.isActive ?? false }
    var isWritable: Bool { context?.channel.isWritable ?? false }

    // MARK: What a call uses

    func write(_ reply: VarlinkReply) {
        guard let context, context.channel.isActive else { return }
        lastWrite = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: reply.encoded)))
    }

    /// Runs `body` once the peer has read enough of what was written (at once if it has).
    func whenWritable(_ body: @escaping () -> Void) {
        guard isOpen else { return }
        if isWritable { body() } else { writabilityWaiters.append(body) }
    }

    /// The call ended: the next may start; a refused connection's one call ends it.
    func callEnded(_ call: VarlinkCallContext) {
        guard current === call else { return }
        current = nil
        guard !isClosing else { return closeAfterWrites() }
        armDeadline(admission.limits.idleDeadline)
        takeCalls()
    }

    func close() {
        context?.close(promise: nil)
    }

    /// The server stops: the call under way is finished and answered, then the connection
    /// closes; with none under way it closes now. A call still in the socket is not read: its
    /// caller sees the connection close unanswered and asks again.
    func finishAndClose() {
        guard !isClosing else { return }
        isClosing = true
        if current == nil { closeAfterWrites() }
    }

    // MARK: The channel

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        connections.opened(self)
        guard !isClosing else { return context.fireChannelActive() }
        guard let identity else {
            service.closed(nil, because: "the kernel did not say who connected")
            return context.close(promise: nil)
        }
        isPrivileged = service.isPrivileged(identity)
        let channel = context.channel
        let decision = admission.connectionOpened(by: identity.userID, isPrivileged: isPrivileged, connection: ObjectIdentifier(self)) {
            channel.close(promise: nil)
        }
        self.decision = decision
        switch decision {
        case .admitted: armDeadline(admission.limits.idleDeadline)
        case .refused: armDeadline(admission.limits.refusalDeadline)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        writabilityWaiters = []
        isClosing = true
        current?.end()
        admission.release(reservedBytes)
        reservedBytes = 0
        if let identity {
            switch decision {
            case .admitted?: admission.connectionClosed(by: identity.userID, isPrivileged: isPrivileged)
            case .refused?: admission.refusalEnded(ObjectIdentifier(self))
            case nil: break
            }
        }
        decision = nil
        connections.closed(self)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard decision == .admitted || decision == .refused, !isClosing else { return }
        var bytes = unwrapInboundIn(data)
        guard admission.reserve(bytes.readableBytes, maximumMessageSize: service.maximumMessageSize) else {
            return closeUnanswered("the daemon is receiving other long messages")
        }
        reservedBytes += bytes.readableBytes
        framing.append(&bytes)
        takeCalls()
    }

    func read(context: ChannelHandlerContext) {
        // Nothing more is read while a call is answered, or while the caller has not read the
        // replies: the next call waits in the socket.
        if current != nil || isClosing || isWaitingForBudget || !context.channel.isWritable {
            isReadPending = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let waiters = writabilityWaiters
            writabilityWaiters = []
            for waiter in waiters { waiter() }
            takeCalls()
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: Calls

    /// Starts the calls that have arrived, one after another while each is answered at once
    /// and the caller reads the replies; reads again once none is left. A loop, not recursion:
    /// a thousand pipelined calls answered from memory do not grow the stack.
    private func takeCalls() {
        guard !isTakingCalls else { return }
        isTakingCalls = true
        defer { isTakingCalls = false }
        while current == nil, !isClosing, isOpen, isWritable {
            if let identity, decision == .admitted, !service.mayTakeCall(from: identity) {
                guard !isWaitingForBudget else { return }
                isWaitingForBudget = true
                service.whenMayTakeCall(from: identity) { [weak self] in
                    self?.isWaitingForBudget = false
                    self?.takeCalls()
                }
                return
            }
            let message: ByteBuffer?
            do {
                message = try framing.nextMessage(longest: admission.limits.longestMessage(maximumMessageSize: service.maximumMessageSize))
            } catch {
                return closeUnanswered("a message is longer than the \(admission.limits.longestMessage(maximumMessageSize: service.maximumMessageSize)) bytes one may have")
            }
            settleBudget()
            guard let message else {
                if isReadPending, let context {
                    isReadPending = false
                    context.read()
                }
                return
            }
            switch message.readableBytesView.withContiguousStorageIfAvailable({ VarlinkCall.parse($0) })
                ?? VarlinkCall.parse(Array(message.readableBytesView))
            {
            case .success(let call): start(call)
            case .failure(.notJSON): return closeUnanswered("a message is not one JSON object (or nests too deep)")
            case .failure(.notACall(let why)): return closeUnanswered(why)
            }
        }
    }

    private func start(_ call: VarlinkCall) {
        deadline?.cancel()
        deadline = nil
        let callContext = VarlinkCallContext(call: call, connection: self)
        current = callContext
        if decision == .refused {
            isClosing = true
            service.refuse(call, context: callContext)
        } else if call.upgrade {
            callContext.send(.failure(VarlinkServiceInterface.Failure.invalidParameter(parameter: "upgrade").varlinkError))
        } else {
            service.handle(call, context: callContext)
        }
        // A oneway call wants nothing back: the connection goes on at once.
        if call.oneway { callContext.end() }
    }

    /// Gives back what the budget holds beyond the bytes still buffered.
    private func settleBudget() {
        let buffered = framing.bufferedBytes
        guard reservedBytes > buffered else { return }
        admission.release(reservedBytes - buffered)
        reservedBytes = buffered
    }

    /// The stream can no longer be read as Varlink: closed, with no reply (there is no call).
    private func closeUnanswered(_ reason: String) {
        guard !isClosing else { return }
        isClosing = true
        service.closed(identity, because: reason)
        close()
    }

    private func closeAfterWrites() {
        guard let context else { return }
        let channel = context.channel
        if let lastWrite {
            lastWrite.whenComplete { _ in channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
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
