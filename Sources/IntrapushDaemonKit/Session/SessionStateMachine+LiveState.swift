// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

extension SessionStateMachine {
    /// What `intrapush status` shows for the machine's state: the one place the live state's
    /// `state` comes from (the process's own end, `stopped`, aside).
    package var liveState: LiveState.State {
        switch state {
        case .idle, .connecting: .connecting
        // A connection of our own being closed is open until it is closed.
        case .connected, .closing: .connected
        case .waiting(_, let lastFailure, _): lastFailure.isTokenRejection ? .rejected : .reconnecting
        case .waitingForNetwork: .waitingForNetwork
        case .stopped: .stopped
        }
    }
}
