// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// What the admission decided for a connection, told down its pipeline before it is active.
struct VarlinkAdmitted {
    let identity: PeerIdentity
    let place: ConnectionClass
    /// False: refused; its one call is answered `Busy`, then it closes.
    let isAdmitted: Bool
}

/// A call began or ended on the connection, told up its pipeline to the admission: a connection
/// with a call under way is not taken to make room.
enum VarlinkCallActivity {
    case started
    case ended
}

/// The first of a connection's Varlink handlers: who is calling (the kernel's word,
/// `PeerIdentity`), of which class, and whether there is a place for them (`VarlinkAdmission`),
/// which it tells the handlers after it (`VarlinkAdmitted`). A peer the kernel does not name is
/// closed at once. Confined to the event loop.
final class VarlinkAdmissionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let identity: PeerIdentity?
    let admission: VarlinkAdmission
    private let classify: (PeerIdentity) -> ConnectionClass
    private let unnamed: () -> Void

    /// `classify` says a caller's class; `unnamed` is told of a peer the kernel did not name.
    init(identity: PeerIdentity?, admission: VarlinkAdmission, classify: @escaping (PeerIdentity) -> ConnectionClass, unnamed: @escaping () -> Void) {
        self.identity = identity
        self.admission = admission
        self.classify = classify
        self.unnamed = unnamed
    }

    func channelActive(context: ChannelHandlerContext) {
        guard let identity else {
            unnamed()
            return context.close(promise: nil)
        }
        let place = classify(identity)
        let channel = context.channel
        let isAdmitted = admission.opened(ObjectIdentifier(self), by: identity.userID, as: place) { channel.close(promise: nil) }
        context.fireUserInboundEventTriggered(VarlinkAdmitted(identity: identity, place: place, isAdmitted: isAdmitted))
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        admission.closed(ObjectIdentifier(self))
        context.fireChannelInactive()
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let activity = event as? VarlinkCallActivity else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        switch activity {
        case .started: admission.callStarted(on: ObjectIdentifier(self))
        case .ended: admission.callEnded(on: ObjectIdentifier(self))
        }
        promise?.succeed(())
    }
}

@available(*, unavailable)
extension VarlinkAdmissionHandler: Sendable {}
