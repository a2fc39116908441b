// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushSupport
import NIOCore

/// What answers a Varlink server's calls: the application above the protocol.
protocol VarlinkService: AnyObject {
    /// `max_message_size` now (a reload may change it): the longest message follows from it.
    var maximumMessageSize: Int { get }
    /// Where `identity`'s connections count (`ConnectionPlaces`).
    func connectionClass(of identity: PeerIdentity) -> ConnectionClass
    /// A call of an admitted connection: answered on `context`, once or as a stream.
    func handle(_ call: VarlinkCall, context: VarlinkCallContext)
    /// The one call of a connection its owner had no room for: answered on `context` with an
    /// error of the call's own interface, after which the connection closes.
    func refuse(_ call: VarlinkCall, context: VarlinkCallContext)
    /// A connection broke the protocol and is closed unanswered (there is no call to answer).
    func closed(_ identity: PeerIdentity?, because reason: String)
    /// The names of an admitted connection's caller, off the loop: its first call is read once
    /// they are known, so every call is taken whole, its write counted as it is read.
    func caller(of identity: PeerIdentity) -> EventLoopFuture<Caller>
    /// Whether `call` may start now: a write waits while its person's earlier writes (oneway ones
    /// included) fill their budget; a read never waits for writes.
    func mayStart(_ call: VarlinkCall, from identity: PeerIdentity) -> Bool
    /// Runs `body` once `identity`'s writes have room (at once when they have now).
    func whenWritesHaveRoom(for identity: PeerIdentity, _ body: @escaping () -> Void)
    /// A oneway call was refused: its caller hears nothing, so it is said here; true when it
    /// was (a read has nothing to lose), and then the connection's later ones are not.
    func onewayRefused(_ call: VarlinkCall, _ error: VarlinkError, by identity: PeerIdentity?) -> Bool
}

/// The Varlink handlers of one connection, in their order: the admission, the framing, the calls.
enum VarlinkPipeline {
    static func handlers(
        service: any VarlinkService, identity: PeerIdentity?, admission: VarlinkAdmission, connections: VarlinkConnections
    ) -> [any ChannelHandler] {
        [
            VarlinkAdmissionHandler(
                identity: identity, admission: admission, classify: { [unowned service] in service.connectionClass(of: $0) },
                unnamed: { [unowned service] in service.closed(nil, because: "the kernel did not say who connected") }),
            VarlinkFrameDecoder(
                admission: admission, maximumMessageSize: { [unowned service] in service.maximumMessageSize },
                closedUnanswered: { [unowned service] in service.closed($0, because: $1) }),
            VarlinkCallHandler(service: service, admission: admission, connections: connections),
        ]
    }

    /// A child channel of a Unix socket's listener: its peer, as the kernel says, and the
    /// handlers after it.
    static func install(
        on channel: any Channel, service: any VarlinkService & Sendable, admission: VarlinkAdmission, connections: VarlinkConnections
    ) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let identity = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
                PeerIdentity.read(from: $0)
            }
            try channel.pipeline.syncOperations.addHandlers(
                handlers(service: service, identity: identity ?? nil, admission: admission, connections: connections))
        }
    }
}

/// The calls of one connection, the last of its Varlink handlers: answers one call at a time,
/// each through its own `VarlinkCallContext`, and asks the framing for the next message
/// (`read`) only once the caller's names are known, the call ended and its replies were read,
/// so that pipelined calls wait in the socket, not in the daemon, and a caller who never reads
/// holds at most the write buffer's high-water mark of replies. A write read while its person's
/// writes fill their budget waits, whole, with nothing more read, until they have room; a read
/// goes on. Deadlines: an idle connection, and a refused one that does not send its call.
/// Confined to the event loop.
final class VarlinkCallHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let service: any VarlinkService
    let admission: VarlinkAdmission
    /// Every open connection of the server, for its stop.
    let connections: VarlinkConnections
    /// What the kernel said of the peer, once admitted.
    private(set) var identity: PeerIdentity?
    /// Where the connection counts.
    private(set) var place: ConnectionClass = .noRights
    /// The caller's names, looked up (off the loop) once the connection was admitted.
    private(set) var caller: Caller?
    private(set) var current: VarlinkCallContext?
    private var context: ChannelHandlerContext?
    private var isAdmitted = false
    /// A message handed on while no call may start: it starts when one may.
    private var pending: ByteBuffer?
    private var isClosing = false
    /// A write read while its person had no room for it: it starts once they have.
    private var waitingWrite: VarlinkCall?
    /// A oneway call refused on this connection was told: the later ones are not.
    private var isOnewayRefusalTold = false
    private var lastWrite: EventLoopFuture<Void>?
    private var writabilityWaiters: [() -> Void] = []
    private var deadline: Scheduled<Void>?

    init(service: any VarlinkService, admission: VarlinkAdmission, connections: VarlinkConnections) {
        self.service = service
        self.admission = admission
        self.connections = connections
    }

    var isOpen: Bool { context?.channel.isActive ?? false }
    var isWritable: Bool { context?.channel.isWritable ?? false }

    // MARK: What a call uses

    /// Writes a reply, encoded once, into the buffer it is sent from.
    func write(_ reply: VarlinkReply) {
        guard let context, context.channel.isActive else { return }
        var buffer = context.channel.allocator.buffer(capacity: 256)
        reply.write(to: &buffer)
        lastWrite = context.writeAndFlush(wrapOutboundOut(buffer))
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
        context?.triggerUserOutboundEvent(VarlinkCallActivity.ended, promise: nil)
        guard !isClosing else { return closeAfterWrites() }
        armDeadline(admission.limits.idleDeadline)
        takeNextCall()
    }

    func close() {
        context?.close(promise: nil)
    }

    /// The server stops: the call under way is finished and answered, then the connection
    /// closes; with none under way it closes now. A call not yet begun is not: its caller sees
    /// the connection close unanswered and asks again.
    func finishAndClose() {
        guard !isClosing else { return }
        isClosing = true
        if current == nil { closeAfterWrites() }
    }

    // MARK: The channel

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let decision = event as? VarlinkAdmitted {
            identity = decision.identity
            place = decision.place
            isAdmitted = decision.isAdmitted
            armDeadline(isAdmitted ? admission.limits.idleDeadline : admission.limits.refusalDeadline)
            if isAdmitted { lookUpCaller(decision.identity, on: context.eventLoop) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelActive(context: ChannelHandlerContext) {
        connections.opened(self)
        context.fireChannelActive()
        takeNextCall()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        writabilityWaiters = []
        isClosing = true
        pending = nil
        waitingWrite = nil
        current?.end()
        connections.closed(self)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        pending = unwrapInboundIn(data)
        takeNextCall()
    }

    func read(context: ChannelHandlerContext) {
        // The channel's own reads too wait until a call may start.
        if mayStartCall { context.read() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let waiters = writabilityWaiters
            writabilityWaiters = []
            for waiter in waiters { waiter() }
            takeNextCall()
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: Calls

    /// The caller known (or refused), no call under way or waiting, the replies read.
    private var mayStartCall: Bool {
        current == nil && waitingWrite == nil && !isClosing && isOpen && isWritable && identity != nil
            && (caller != nil || !isAdmitted)
    }

    private func lookUpCaller(_ identity: PeerIdentity, on loop: any EventLoop) {
        service.caller(of: identity).hop(to: loop).assumeIsolated().whenComplete { [weak self] result in
            guard let self, !self.isClosing else { return }
            switch result {
            case .success(let caller):
                self.caller = caller
                self.takeNextCall()
            case .failure:
                self.closeUnanswered("the daemon stops before it knew who connected")
            }
        }
    }

    /// A oneway call was answered with an error nobody will read.
    func onewayFailed(_ call: VarlinkCall, _ error: VarlinkError) {
        guard !isOnewayRefusalTold else { return }
        isOnewayRefusalTold = service.onewayRefused(call, error, by: identity)
    }

    /// Starts the call handed on, or asks the framing for the next message.
    private func takeNextCall() {
        guard mayStartCall, let context else { return }
        guard let message = pending else { return context.read() }
        pending = nil
        switch message.readableBytesView.withContiguousStorageIfAvailable({ VarlinkCall.parse($0) })
            ?? VarlinkCall.parse(Array(message.readableBytesView))
        {
        case .success(let call): startWhenItMay(call)
        case .failure(.notJSON): closeUnanswered("a message is not one JSON object (or nests too deep)")
        case .failure(.notACall(let why)): closeUnanswered(why)
        }
    }

    /// Starts `call`, or, a write of a person whose writes fill their budget, keeps it until
    /// they have room, reading nothing more meanwhile.
    private func startWhenItMay(_ call: VarlinkCall) {
        guard isAdmitted, let identity, !service.mayStart(call, from: identity) else { return start(call) }
        deadline?.cancel()
        deadline = nil
        waitingWrite = call
        service.whenWritesHaveRoom(for: identity) { [weak self] in
            guard let self, let call = self.waitingWrite, !self.isClosing else { return }
            self.waitingWrite = nil
            self.startWhenItMay(call)
        }
    }

    private func start(_ call: VarlinkCall) {
        deadline?.cancel()
        deadline = nil
        let callContext = VarlinkCallContext(call: call, connection: self)
        current = callContext
        context?.triggerUserOutboundEvent(VarlinkCallActivity.started, promise: nil)
        if !isAdmitted {
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
extension VarlinkCallHandler: Sendable {}

extension ByteBuffer: JSONOutput {
    package mutating func write(bytes: UnsafeRawBufferPointer) {
        writeBytes(bytes)
    }

    package mutating func write(count: Int, _ body: (inout ByteWriter) -> Void) {
        writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
            var writer = ByteWriter(buffer: UnsafeMutableBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
            body(&writer)
            return count
        }
    }
}
