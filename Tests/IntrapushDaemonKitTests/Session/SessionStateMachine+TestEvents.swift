// SPDX-License-Identifier: Apache-2.0

@testable import IntrapushDaemonKit

/// The lifecycle tests speak of "the dial", "the connection" and "the probe" without their ids:
/// these report each event under the id the machine gave the session's dial or connection (or
/// its probe of the primary). The routing of ids has tests of its own
/// (`SessionStateMachineRoutingTests`), which name them.
extension SessionStateMachine {
    /// An id the machine never hands out: an event of it is one of nobody's.
    static var nobody: ConnectionID { ConnectionID(number: 0) }

    /// The id of the dial `actions` start, if they start one.
    func connectionID(after actions: [Action]) -> ConnectionID? {
        actions.lazy.compactMap { if case .connect(let id, _) = $0 { id } else { nil } }.first
    }

    var isDialling: Bool {
        if case .connecting = state { true } else { false }
    }

    func isConnected(since instant: Instant) -> Bool {
        if case .connected(_, instant, _, _, _) = state { true } else { false }
    }

    mutating func connectionEstablished(at now: Instant) -> [Action] {
        connectionEstablished(connectionID ?? Self.nobody, at: now)
    }

    mutating func connectionFailed(_ reason: DisconnectReason, at now: Instant) -> [Action] {
        connectionFailed(connectionID ?? Self.nobody, reason, at: now)
    }

    mutating func connectionLost(_ reason: DisconnectReason, at now: Instant) -> [Action] {
        connectionLost(connectionID ?? Self.nobody, reason, at: now)
    }

    mutating func primaryProbeSucceeded(at now: Instant) -> [Action] {
        connectionEstablished(probeID ?? Self.nobody, at: now)
    }

    mutating func primaryProbeFailed(_ reason: DisconnectReason, at now: Instant) -> [Action] {
        connectionFailed(probeID ?? Self.nobody, reason, at: now)
    }
}

/// What kind of action each is, without the ids: `[.connect]` reads as `kinds(x) == ["connect"]`.
func kinds<Random>(_ actions: [SessionStateMachine<Random>.Action]) -> [String] {
    actions.map { action in
        switch action {
        case .connect: "connect"
        case .useConnection: "useConnection"
        case .scheduleReconnect: "scheduleReconnect"
        case .closeConnection(_, let reason): "closeConnection(\(reason))"
        case .cancelConnectAttempt: "cancelConnectAttempt"
        case .discard: "discard"
        case .waitForNetwork: "waitForNetwork"
        case .verifyConnection: "verifyConnection"
        case .stop: "stop"
        case .scheduleFailback(let delay): "scheduleFailback(\(delay))"
        case .probePrimary: "probePrimary"
        case .switchToPrimary(let from, _): from == nil ? "switchToPrimary" : "switchToPrimary(draining)"
        }
    }
}
