// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import NIOCore
import NIOWebSocket

extension PushConnectionHandler {
    /// Performs what the connection machine decided, in the order it gave. The one place its
    /// actions happen; without a context (the handler has left the pipeline, so the channel is
    /// gone) only what needs no channel is done: committed rows still reach the outbox and hook.
    func perform(_ actions: [PushConnectionStateMachine.Action], committed: CommittedBatch? = nil, context: ChannelHandlerContext?) {
        performDepth += 1
        defer {
            performDepth -= 1
            if performDepth == 0, let result = finishedCommit {
                finishedCommit = nil
                commitFinished(result)
            }
        }
        for action in actions {
            // What needs no channel: the rows are stored whether or not an acknowledgement can go.
            switch action {
            case .tellOutbox(let batch):
                outbox?.committed(batch)
                continue
            case .handToHook(let batch):
                // After the acknowledgements are flushed, and even when none could go: the server's
                // redelivery would be a duplicate that runs no hook.
                hook?.submit(batch, outcomes: committed?.outcomes ?? [])
                continue
            default:
                break
            }
            guard let context else { continue }
            switch action {
            case .acknowledge(let batch):
                acknowledge(batch, committed: committed, context: context)
            case .tellOutbox, .handToHook:
                break  // above
            case .startCommit(let batch):
                startCommit(batch, context: context)
            case .pauseReading:
                setReading(false, context: context)
            case .resumeReading:
                setReading(true, context: context)
            case .sendClose(let frame):
                guard context.channel.isActive else { break }
                var data = context.channel.allocator.buffer(capacity: 2)
                if case .code(let code) = frame { data.writeInteger(code) }
                write(.connectionClose, data: data, context: context)
                context.flush()
            case .scheduleCloseTimeout:
                closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.closeHandshakeTimeout) {
                    self.perform(self.machine.closeTimeoutFired(), context: self.context)
                }
            case .closeChannel:
                context.close(promise: nil)
            case .reportClosed(let reason):
                events.send(.closed(reason))
            }
        }
        if context != nil, !machine.isTakingPushes {
            outbox?.detach(self)  // closing: nothing more for the server on this connection
        }
    }

    /// On the daemon's push loop the store commits at once and the future is already complete;
    /// elsewhere (tests) it completes later. Either way the machine hears of it in one place.
    private func startCommit(_ batch: [Push], context: ChannelHandlerContext) {
        committer.commit(batch, on: context.eventLoop)
            .hop(to: context.eventLoop)
            .assumeIsolated()
            .whenComplete { result in
                guard self.performDepth == 0 else {
                    self.finishedCommit = result  // performed once the current actions are
                    return
                }
                self.commitFinished(result)
            }
    }

    private func commitFinished(_ result: Result<CommittedBatch, any Error>) {
        // After handlerRemoved there is no context and the machine is `closed`: nothing can be
        // acknowledged, but the rows are stored and their hook still runs.
        switch result {
        case .success(let committed):
            perform(machine.commitSucceeded(), committed: committed, context: context)
        case .failure(let error):
            guard let context else { return }
            let detail = String(describing: error)
            logger.error(
                "could not store a push; dropping the connection so the server delivers it again",
                metadata: .event(.commitFailed, [
                    "error": detail, "disk_full": (error as? DatabaseError)?.isDiskFull == true ? "yes" : "no",
                ]))
            perform(machine.commitFailed(detail), context: context)
        }
    }

    /// One acknowledgement per push, in arrival order, all in one flush.
    private func acknowledge(_ batch: [Push], committed: CommittedBatch?, context: ChannelHandlerContext) {
        guard context.channel.isActive, let frameEncoder else { return }
        // Framed here into one buffer and handed on past the frame encoder, in one write.
        var frames = context.channel.allocator.buffer(capacity: batch.count * 32)
        for push in batch {
            let text = fixedAcknowledgement ?? ByteBuffer(string: settings.acknowledgement(for: push.messageID, isNumber: push.messageIDIsNumber))
            MaskedTextFrames.append(text, maskedWith: maskingKeys.nextBytes(), to: &frames)
        }
        frameEncoder.write(NIOAny(frames), promise: nil)
        context.flush()
        if let metrics {
            let now = NIODeadline.now().uptimeNanoseconds
            for push in batch {
                metrics.pushAcknowledged(arrivedAt: push.arrivedAtUptimeNanoseconds, committed: committed, acknowledgedAt: now)
            }
        }
        committer.acknowledged(batch.count)
    }

    private func setReading(_ isEnabled: Bool, context: ChannelHandlerContext) {
        context.channel.setOption(ChannelOptions.autoRead, value: isEnabled).whenFailure { _ in }
        if isEnabled { context.read() }
    }

    /// Client frames must be masked (RFC 6455 §5.3); NIO's encoder applies the key.
    func write(_ opcode: WebSocketOpcode, data: ByteBuffer, context: ChannelHandlerContext) {
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: maskingKeys.next(), data: data)
        context.write(wrapOutboundOut(frame), promise: nil)
    }
}

extension PushConnectionHandler: OutboxSender {
    func sendUpstream(_ entries: [OutboxEntry]) -> Bool {
        guard let context, machine.isTakingPushes, context.channel.isActive else { return false }
        for entry in entries {
            write(.text, data: context.channel.allocator.buffer(string: entry.text), context: context)
        }
        context.flush()
        return true
    }

    func outboxFailed(_ detail: String) {
        guard let context else { return }
        // Not `commitFailed`: a batch of pushes may still be committing, and will be acknowledged
        // by nobody (the channel closes); the server delivers it again.
        perform(machine.connectionFailed(.storeFailed(detail)), context: context)
    }
}
