import IntrapushStore

extension PushConnectionStateMachine {
    /// A push arrived. Once a close is under way it is neither stored nor acknowledged: the
    /// server still holds it and delivers it on the next connection.
    package mutating func pushReceived(_ push: Push) -> Actions {
        guard case .open(let isReadingPaused) = state else {
            assert(state != .closed, "a push arrived after the channel closed")
            return .none
        }
        commits.received(push)
        var actions = Actions(startCommit: commits.nextBatch())
        if !isReadingPaused, isBacklogFull {
            state = .open(isReadingPaused: true)
            actions.pauseReading = true
        }
        return actions
    }

    /// The store committed the batch in flight: acknowledge it while acknowledgements may go out,
    /// start the next one, and finish a requested close once nothing is left.
    package mutating func commitSucceeded() -> Actions {
        assert(commits.inFlight != nil, "a commit succeeded with no batch in flight")
        let batch = commits.written()
        var actions = Actions(handToHook: batch)
        switch state {
        case .open(let isReadingPaused), .draining(let isReadingPaused):
            actions.acknowledge = batch
            actions.startCommit = commits.nextBatch()
            if case .draining = state, commits.isIdle {
                actions.merge(sendCloseFrame(.code(Self.normalClosure), wasReadingPaused: isReadingPaused))
            } else if isReadingPaused, hasBacklogDrained {
                state = if case .draining = state { .draining(isReadingPaused: false) } else { .open(isReadingPaused: false) }
                actions.resumeReading = true
            }
        case .closeSent, .closingChannel:
            // Stored, but no acknowledgement may follow our close: a redelivery will be a duplicate.
            actions.startCommit = commits.nextBatch()
        case .closed:
            // The rows are stored (the hook runs for them); what waited is left to redelivery.
            commits.abandon()
        }
        return actions
    }

    /// The store could not commit the batch: nothing of it is acknowledged, and the connection
    /// is dropped so that the server delivers it again.
    package mutating func commitFailed(_ detail: String) -> Actions {
        commits.abandon()
        return failed(.storeFailed(detail), closeCode: Self.unexpectedCondition)
    }

    /// Shutdown or reload asked for close 1000 once what was taken is acknowledged.
    package mutating func closeRequested(_ reason: DisconnectReason) -> Actions {
        guard case .open(let isReadingPaused) = state else { return .none }  // already closing
        closeReason = closeReason ?? reason
        var actions = Actions()
        if commits.isIdle {
            actions.merge(sendCloseFrame(.code(Self.normalClosure), wasReadingPaused: isReadingPaused))
        } else {
            state = .draining(isReadingPaused: isReadingPaused)
        }
        actions.merge(armCloseTimeout())
        return actions
    }

    /// The server sent a close frame: it answers ours, or it closes first and we echo its code.
    /// `retryAfter` is the wait a 1012/1013 close's reason asked for (`RetryHint`).
    package mutating func closeFrameReceived(code: UInt16?, retryAfter: Duration? = nil) -> Actions {
        switch state {
        case .closeSent:
            state = .closingChannel
            return Actions(closeChannel: true)
        case .open, .draining:
            closeReason = closeReason
                ?? retryAfter.map { .serverAskedToWait($0, origin: "close \(code.map(String.init) ?? "")") }
                ?? .closedByServer(code: code.map(Int.init))
            state = .closingChannel
            return Actions(sendClose: code.map(CloseFrame.code) ?? .empty, closeChannel: true)
        case .closingChannel:
            return .none
        case .closed:
            assertionFailure("a close frame arrived after the channel closed")
            return .none
        }
    }

    /// A WebSocket protocol error (`closeCode` 1002, or 1009 for a message too large).
    package mutating func protocolErrorCaught(_ reason: DisconnectReason, closeCode: UInt16) -> Actions {
        failed(reason, closeCode: closeCode)
    }

    /// Any other error the channel reported, or a dead peer: the channel is closed at once.
    package mutating func connectionFailed(_ reason: DisconnectReason) -> Actions {
        closeReason = closeReason ?? reason
        switch state {
        case .open, .draining, .closeSent:
            state = .closingChannel
            return Actions(closeChannel: true)
        case .closingChannel, .closed:
            return .none
        }
    }

    /// The server did not answer our close in time.
    package mutating func closeTimeoutFired() -> Actions {
        connectionFailed(.closedByServer(code: nil))
    }

    /// The channel went inactive, or the handler left the pipeline (a dial abandoned during the
    /// upgrade adds it to a channel that is already inactive): report the end, once.
    package mutating func channelClosed() -> Actions {
        guard state != .closed else { return .none }
        state = .closed
        return Actions(reportClosed: closeReason ?? .closedByServer(code: nil))
    }

    /// A close frame with `closeCode` while one may still go out, and the channel closed at once
    /// (no answer is awaited, so no close timeout).
    private mutating func failed(_ reason: DisconnectReason, closeCode: UInt16) -> Actions {
        guard mayWriteDataFrames else { return connectionFailed(reason) }
        closeReason = closeReason ?? reason
        state = .closingChannel
        return Actions(sendClose: .code(closeCode), closeChannel: true)
    }

    /// Our close frame; reading resumes so that the server's answer is seen.
    private mutating func sendCloseFrame(_ frame: CloseFrame, wasReadingPaused: Bool) -> Actions {
        state = .closeSent
        var actions = Actions(resumeReading: wasReadingPaused, sendClose: frame)
        actions.merge(armCloseTimeout())
        return actions
    }

    private mutating func armCloseTimeout() -> Actions {
        guard !isCloseTimeoutScheduled else { return .none }
        isCloseTimeoutScheduled = true
        return Actions(scheduleCloseTimeout: true)
    }
}

extension PushConnectionStateMachine.Actions {
    /// Adds `other`'s actions; each kind comes from one place at most.
    mutating func merge(_ other: Self) {
        acknowledge = acknowledge ?? other.acknowledge
        handToHook = handToHook ?? other.handToHook
        startCommit = startCommit ?? other.startCommit
        pauseReading = pauseReading || other.pauseReading
        resumeReading = resumeReading || other.resumeReading
        sendClose = sendClose ?? other.sendClose
        scheduleCloseTimeout = scheduleCloseTimeout || other.scheduleCloseTimeout
        closeChannel = closeChannel || other.closeChannel
        reportClosed = reportClosed ?? other.reportClosed
    }
}
