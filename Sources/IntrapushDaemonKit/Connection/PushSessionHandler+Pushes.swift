import IntrapushStore
import IntrapushSupport
import NIOCore
import NIOWebSocket

extension PushSessionHandler {
    func receivedPush(_ payload: ByteBuffer, context: ChannelHandlerContext) {
        // After our close frame we may not acknowledge, so we do not store either: the server
        // still holds these pushes and delivers them on the next connection.
        guard !isCloseSent, closeReason == nil else { return }
        let receivedAt = WallClock.nowMilliseconds()
        let push = payload.withUnsafeReadableBytes { decoder.decode(frame: $0, receivedAt: receivedAt) }
        commits.received(push)
        startNextCommit(context: context)
        if !isReadingPaused, commits.waiting.count > Self.pauseReadingAbove {
            setReading(false, context: context)
        }
    }

    func startNextCommit(context: ChannelHandlerContext) {
        guard let batch = commits.nextBatch() else { return }
        committer.commit(batch, on: context.eventLoop)
            .hop(to: context.eventLoop)
            .assumeIsolated()
            .whenComplete { result in
                self.commitFinished(result)
            }
    }

    private func commitFinished(_ result: Result<[StoreOutcome], any Error>) {
        guard let context else {
            commits.abandon()  // the handler left the pipeline: nothing can be acknowledged
            return
        }
        switch result {
        case .success(let outcomes):
            // Duplicates are acknowledged like new rows; the store worker counts them.
            let batch = commits.committed()
            acknowledge(batch, context: context)
            // After the acknowledgements are flushed, and even when the channel closed before
            // they could go: the rows are stored, and the server's redelivery would be a
            // duplicate that runs no hook. `submit` only queues.
            hook?.submit(batch, outcomes: outcomes)
            startNextCommit(context: context)
            if isReadingPaused, commits.waiting.count < Self.resumeReadingBelow {
                setReading(true, context: context)
            }
            if isCloseRequested, !isCloseSent, commits.isIdle {
                sendClose(code: .normalClosure, context: context)
            }
        case .failure(let error):
            commits.abandon()
            let detail = String(describing: error)
            logger.error("could not store a push; dropping the connection so the server delivers it again", metadata: ["error": "\(detail)"])
            closeReason = closeReason ?? .storeFailed(detail)
            sendClose(code: .unexpectedServerError, context: context)
            context.close(promise: nil)
        }
    }

    /// One acknowledgement per push, in arrival order, all in one flush.
    private func acknowledge(_ batch: [Push], context: ChannelHandlerContext) {
        guard context.channel.isActive, !isCloseSent else { return }
        for push in batch {
            if let fixedAcknowledgement {
                write(.text, data: fixedAcknowledgement, context: context)
            } else {
                write(.text, data: ByteBuffer(string: settings.acknowledgement(for: push.messageID)), context: context)
            }
        }
        context.flush()
        events.send(.batchAcknowledged(count: batch.count))
    }

    func setReading(_ isEnabled: Bool, context: ChannelHandlerContext) {
        isReadingPaused = !isEnabled
        context.channel.setOption(ChannelOptions.autoRead, value: isEnabled).whenFailure { _ in }
        if isEnabled { context.read() }
    }

    /// Client frames must be masked (RFC 6455 §5.3); NIO's encoder applies the key.
    func write(_ opcode: WebSocketOpcode, data: ByteBuffer, context: ChannelHandlerContext) {
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: maskingKeys.next(), data: data)
        context.write(wrapOutboundOut(frame), promise: nil)
    }
}
