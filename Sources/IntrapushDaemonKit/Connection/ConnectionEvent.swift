// SPDX-License-Identifier: Apache-2.0

/// What an open connection reports to the session loop.
enum ConnectionEvent: Sendable {
    /// The heartbeat text and a ping went out.
    case heartbeatSent(atMilliseconds: Int64)
    /// The connection ended; nothing more will come from it.
    case closed(DisconnectReason)
}

/// Where a connection's events go; called on the connection's event loop, so it must not block.
struct ConnectionEventSink: Sendable {
    private let deliver: @Sendable (ConnectionEvent) -> Void

    init(_ deliver: @escaping @Sendable (ConnectionEvent) -> Void) {
        self.deliver = deliver
    }

    func send(_ event: ConnectionEvent) {
        deliver(event)
    }
}

/// Sent down the pipeline to ask an open connection to close itself with code 1000.
struct CloseRequested: Sendable {
    var reason: DisconnectReason
}

/// Sent down the pipeline when a reload changed `on_notification`: later batches go to `runner`
/// (`nil`: no hook any more).
struct HookReplaced: Sendable {
    var runner: HookRunner?
}

/// Sent down the pipeline to have an open connection verified now (the network changed, or the
/// system slept): a ping goes out and the connection is dropped when nothing comes back within a
/// few seconds.
struct VerifyRequested: Sendable {
    /// Why, for the log: "the network changed".
    var reason: String
}
