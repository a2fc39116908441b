// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

extension PushConnectionStateMachine {
    /// A push arrived. It waits for the end of the read (`readCompleted`), so that one commit
    /// takes everything the socket held. Once a close is under way it is neither stored nor
    /// acknowledged: the server still holds it and delivers it on the next connection.
    mutating func pushReceived(_ push: Push) -> [Action] {
        guard case .open(let isReadingPaused) = state else {
            assert(state != .closed, "a push arrived after the channel closed")
            return []
        }
        commits.received(push)
        guard !isReadingPaused, isBacklogFull else { return [] }
        state = .open(isReadingPaused: true)
        return [.pauseReading]
    }

    /// The channel has read what the socket held: what arrived is committed now, in one
    /// transaction, unless a commit is under way (then it goes next, with what comes meanwhile).
    mutating func readCompleted() -> [Action] {
        guard state != .closed else { return [] }
        return commits.nextBatch().map { [.startCommit($0)] } ?? []
    }

    /// The store committed the batch in flight: acknowledge it while acknowledgements may go out,
    /// start the next one, and finish a requested close once nothing is left.
    mutating func commitSucceeded() -> [Action] {
        assert(commits.inFlight != nil, "a commit succeeded with no batch in flight")
        let batch = commits.written()
        switch state {
        case .open(let isReadingPaused), .draining(let isReadingPaused):
            var actions: [Action] = [.acknowledge(batch), .tellOutbox(batch), .handToHook(batch)]
            if let next = commits.nextBatch() { actions.append(.startCommit(next)) }
            if case .draining = state, commits.isIdle {
                actions += sendCloseFrame(.code(Self.normalClosure), wasReadingPaused: isReadingPaused)
            } else if isReadingPaused, hasBacklogDrained {
                state = if case .draining = state { .draining(isReadingPaused: false) } else { .open(isReadingPaused: false) }
                actions.append(.resumeReading)
            }
            return actions
        case .closeSent, .closingChannel:
            // Stored, but no acknowledgement may follow our close: a redelivery will be a duplicate.
            return [.tellOutbox(batch), .handToHook(batch)] + (commits.nextBatch().map { [.startCommit($0)] } ?? [])
        case .closed:
            // The rows are stored (the hook runs for them); what waited is left to redelivery.
            commits.abandon()
            return [.tellOutbox(batch), .handToHook(batch)]
        }
    }

    /// The store could not commit the batch: nothing of it is acknowledged, and the connection
    /// is dropped so that the server delivers it again.
    mutating func commitFailed(_ detail: String) -> [Action] {
        commits.abandon()
        return failed(.storeFailed(detail), closeCode: Self.unexpectedCondition)
    }

    /// Shutdown or reload asked for close 1000 once what was taken is acknowledged.
    mutating func closeRequested(_ reason: DisconnectReason) -> [Action] {
        guard case .open(let isReadingPaused) = state else { return [] }  // already closing
        closeReason = closeReason ?? reason
        var actions: [Action] = []
        if commits.isIdle {
            actions += sendCloseFrame(.code(Self.normalClosure), wasReadingPaused: isReadingPaused)
        } else {
            state = .draining(isReadingPaused: isReadingPaused)
            if let waiting = commits.nextBatch() { actions.append(.startCommit(waiting)) }
        }
        return actions + armCloseTimeout()
    }

    /// The server sent a close frame: it answers ours, or it closes first and we echo its code.
    /// `retryAfter` is the wait a 1012/1013 close's reason asked for (`RetryHint`).
    mutating func closeFrameReceived(code: UInt16?, retryAfter: Duration? = nil) -> [Action] {
        switch state {
        case .closeSent:
            state = .closingChannel
            return [.closeChannel]
        case .open, .draining:
            closeReason = closeReason
                ?? retryAfter.map { .serverAskedToWait($0, origin: "close \(code.map(String.init) ?? "")") }
                ?? .closedByServer(code: code.map(Int.init))
            state = .closingChannel
            return [.sendClose(code.map(CloseFrame.code) ?? .empty), .closeChannel]
        case .closingChannel:
            return []
        case .closed:
            assertionFailure("a close frame arrived after the channel closed")
            return []
        }
    }

    /// A WebSocket protocol error (`closeCode` 1002, or 1009 for a message too large).
    mutating func protocolErrorCaught(_ reason: DisconnectReason, closeCode: UInt16) -> [Action] {
        failed(reason, closeCode: closeCode)
    }

    /// Any other error the channel reported, or a dead peer: the channel is closed at once.
    mutating func connectionFailed(_ reason: DisconnectReason) -> [Action] {
        closeReason = closeReason ?? reason
        switch state {
        case .open, .draining, .closeSent:
            state = .closingChannel
            return [.closeChannel]
        case .closingChannel, .closed:
            return []
        }
    }

    /// The server did not answer our close in time.
    mutating func closeTimeoutFired() -> [Action] {
        connectionFailed(.closedByServer(code: nil))
    }

    /// The channel went inactive, or the handler left the pipeline (a dial abandoned during the
    /// upgrade adds it to a channel that is already inactive): report the end, once.
    mutating func channelClosed() -> [Action] {
        guard state != .closed else { return [] }
        state = .closed
        return [.reportClosed(closeReason ?? .closedByServer(code: nil))]
    }

    /// A close frame with `closeCode` while one may still go out, and the channel closed at once
    /// (no answer is awaited, so no close timeout).
    private mutating func failed(_ reason: DisconnectReason, closeCode: UInt16) -> [Action] {
        guard mayWriteDataFrames else { return connectionFailed(reason) }
        closeReason = closeReason ?? reason
        state = .closingChannel
        return [.sendClose(.code(closeCode)), .closeChannel]
    }

    /// Our close frame; reading resumes so that the server's answer is seen.
    private mutating func sendCloseFrame(_ frame: CloseFrame, wasReadingPaused: Bool) -> [Action] {
        state = .closeSent
        return (wasReadingPaused ? [.resumeReading] : []) + [.sendClose(frame)] + armCloseTimeout()
    }

    private mutating func armCloseTimeout() -> [Action] {
        guard !isCloseTimeoutScheduled else { return [] }
        isCloseTimeoutScheduled = true
        return [.scheduleCloseTimeout]
    }
}
