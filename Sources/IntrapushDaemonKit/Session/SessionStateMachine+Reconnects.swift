// SPDX-License-Identifier: Apache-2.0

extension SessionStateMachine.Action {
    /// The daemon will try the server again: after a loss or a failed attempt, this is what
    /// `intrapush_reconnects_total` counts.
    package var reconnects: Bool {
        switch self {
        case .connect, .scheduleReconnect, .waitForNetwork: true
        case .useConnection, .closeConnection, .cancelConnectAttempt, .discard, .verifyConnection, .stop, .scheduleFailback,
            .probePrimary, .switchToPrimary:
            false
        }
    }
}
