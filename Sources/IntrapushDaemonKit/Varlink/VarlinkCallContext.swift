// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import NIOCore

/// One call on one connection, and the only way to answer it: each call gets its own handle, so
/// a reply written after the call ended (a query that finished late, a subscriber's next row)
/// is dropped, never taken for a reply of the call after it. The one place where the protocol's
/// rules for replies live: `continues` only when the caller asked for more, nothing at all for
/// a oneway call, nothing after the last. Confined to the event loop.
final class VarlinkCallContext: VarlinkReplySink {
    let call: VarlinkCall
    /// The connection the call came on; it outlives the call.
    unowned let connection: VarlinkCallHandler
    private(set) var isActive = true
    private var endHandlers: [() -> Void] = []
    private var isFailureTold = false

    init(call: VarlinkCall, connection: VarlinkCallHandler) {
        self.call = call
        self.connection = connection
    }

    var wantsMore: Bool { call.more }
    /// The caller reads what was written: a stream may go on without piling up in the daemon.
    var isWritable: Bool { isActive && connection.isWritable }

    func send(_ reply: VarlinkReply) {
        // A oneway call ended when it was read; its failure, which nobody hears, is still told.
        if call.oneway, let error = reply.error, !isFailureTold {
            isFailureTold = true
            connection.onewayFailed(call, VarlinkError(error, reply.parameters))
        }
        guard isActive else { return }
        var reply = reply
        if reply.error != nil || !call.more { reply.continues = false }
        if !call.oneway { connection.write(reply) }
        if !reply.continues { end() }
    }

    /// Runs `body` once the call ends: its last reply written, its connection closed, or (a
    /// oneway call) at once. A subscription, a request awaiting its reply, let go of here.
    func onEnd(_ body: @escaping () -> Void) {
        guard isActive else { return body() }
        endHandlers.append(body)
    }

    /// Runs `body` once the caller has read enough of what was written (at once if it has),
    /// unless the call ended meanwhile.
    func whenWritable(_ body: @escaping () -> Void) {
        guard isActive else { return }
        connection.whenWritable { [self] in
            if isActive { body() }
        }
    }

    /// Ends the call without a word more: its connection closed, or it was oneway.
    func end() {
        guard isActive else { return }
        isActive = false
        let handlers = endHandlers
        endHandlers = []
        for handler in handlers { handler() }
        connection.callEnded(self)
    }
}

@available(*, unavailable)
extension VarlinkCallContext: Sendable {}
