// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

/// The push path and the closing of one open connection, with no I/O: pushes in, commits out,
/// acknowledgements only for what the store reported committed, in arrival order.
///
/// `PushConnectionHandler` feeds it events (named in the past tense) and performs the `Action`s it
/// returns. It owns the group commit, read backpressure, the close handshake and the reason the
/// connection ended. A transition that cannot happen traps in debug builds.
struct PushConnectionStateMachine {
    enum State: Equatable {
        /// Taking pushes. Reading pauses while too many wait for the store.
        case open(isReadingPaused: Bool)
        /// Asked to close (shutdown, reload): no new push is taken; what was taken is committed
        /// and acknowledged, then close 1000 goes out.
        case draining(isReadingPaused: Bool)
        /// Our close frame is out: no data frame may follow it (RFC 6455 §5.5.1). Reading goes
        /// on until the server's close arrives or the timeout closes the channel.
        case closeSent
        /// We closed the channel (a close from the server, an error, a dead peer).
        case closingChannel
        /// The channel is gone and the session was told why.
        case closed
    }

    /// What the handler does. Each event answers with a list of them, in the order they are to
    /// be performed: acknowledge, tell the outbox, hand to the hook, start a commit, pause or resume reading, send
    /// a close frame, arm the close timeout, close the channel, report the end to the session.
    enum Action: Equatable {
        /// One acknowledgement per push, in order, in one flush.
        case acknowledge([Push])
        /// Committed rows for the outbox: the replies among them answer its requests.
        case tellOutbox([Push])
        /// Committed rows for `on_notification`; stored even when no ack may go out.
        case handToHook([Push])
        case startCommit([Push])
        case pauseReading
        case resumeReading
        case sendClose(CloseFrame)
        case scheduleCloseTimeout
        case closeChannel
        case reportClosed(DisconnectReason)
    }

    /// The close frame to send: with a status code, or empty (echoing a close that had none).
    enum CloseFrame: Equatable {
        case code(UInt16)
        case empty
    }

    static let normalClosure: UInt16 = 1000
    static let unexpectedCondition: UInt16 = 1011

    /// Set only by the events (`+Events.swift`).
    var state: State = .open(isReadingPaused: false)
    /// Why the connection ended, once known: the first reason wins.
    var closeReason: DisconnectReason?
    var commits: WriteCoalescer<Push>
    var isCloseTimeoutScheduled = false
    /// Above this many uncommitted pushes, or this many of their bytes, reading stops until
    /// the store catches up: a server cannot fill memory faster than the disk takes it.
    let pauseReadingAbove: Int
    let resumeReadingBelow: Int
    let pauseReadingAboveBytes: Int
    let resumeReadingBelowBytes: Int

    init(
        pauseReadingAbove: Int = 16_384, resumeReadingBelow: Int = 4_096,
        pauseReadingAboveBytes: Int = 32 << 20, resumeReadingBelowBytes: Int = 8 << 20, maximumBatchSize: Int = 4_096
    ) {
        self.pauseReadingAbove = pauseReadingAbove
        self.resumeReadingBelow = resumeReadingBelow
        self.pauseReadingAboveBytes = pauseReadingAboveBytes
        self.resumeReadingBelowBytes = resumeReadingBelowBytes
        self.commits = WriteCoalescer(maximumBatchSize: maximumBatchSize) { $0.payloadByteCount }
    }

    /// Heartbeats, pings and acknowledgements may still go out.
    var mayWriteDataFrames: Bool {
        switch state {
        case .open, .draining: true
        case .closeSent, .closingChannel, .closed: false
        }
    }

    /// Open and not closing: pushes are taken, and messages to the server may go out.
    var isTakingPushes: Bool {
        if case .open = state { true } else { false }
    }

    /// How many pushes are taken and not yet committed.
    var uncommittedCount: Int { commits.unwrittenCount }

    /// Too much waits for the store: reading pauses.
    var isBacklogFull: Bool {
        commits.waiting.count > pauseReadingAbove || commits.waitingWeight > pauseReadingAboveBytes
    }

    /// The store caught up enough: reading resumes.
    var hasBacklogDrained: Bool {
        commits.waiting.count < resumeReadingBelow && commits.waitingWeight < resumeReadingBelowBytes
    }
}
