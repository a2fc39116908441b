import IntrapushSupport
import NIOCore
import NIOWebSocket

extension PushSessionHandler {
    func armLivenessTimer(context: ChannelHandlerContext, at instant: ContinuousClock.Instant) {
        livenessTimer?.cancel()
        let delay = max(.zero, instant - ContinuousClock.now)
        livenessTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(delay.nanoseconds)) {
            self.livenessTimerFired()
        }
    }

    private func livenessTimerFired() {
        guard let context, var machine = liveness else { return }
        let slept = suspendDetector.observedNow()
        if let slept {
            logger.notice("the system slept for \(Int(slept.secondsValue.rounded())) s; checking the connection")
        }
        let action = machine.timerFired(at: .now, slept: slept)
        liveness = machine
        perform(action, context: context)
    }

    /// The session asks for the connection to be verified now (the network changed).
    func verifyRequested(_ request: VerifyRequested, context: ChannelHandlerContext) {
        guard var machine = liveness, !isCloseSent else { return }
        logger.info("\(request.reason); checking the connection with a ping")
        let action = machine.verificationRequested(at: .now)
        liveness = machine
        perform(action, context: context)
    }

    private func perform(_ action: ConnectionLiveness.Action, context: ChannelHandlerContext) {
        switch action {
        case .sendHeartbeat(let wakeAt):
            if !isCloseSent {
                var text = context.channel.allocator.buffer(capacity: settings.heartbeatText.utf8.count)
                text.writeString(settings.heartbeatText)
                write(.text, data: text, context: context)
                write(.ping, data: context.channel.allocator.buffer(capacity: 0), context: context)
                context.flush()
                events.send(.heartbeatSent(atMilliseconds: WallClock.nowMilliseconds()))
            }
            armLivenessTimer(context: context, at: wakeAt)
        case .sendPing(let wakeAt):
            if !isCloseSent {
                write(.ping, data: context.channel.allocator.buffer(capacity: 0), context: context)
                context.flush()
            }
            armLivenessTimer(context: context, at: wakeAt)
        case .wait(let until):
            armLivenessTimer(context: context, at: until)
        case .closeDeadConnection:
            logger.warning("nothing received for \(settings.deadPeerTimeout): dropping the connection")
            closeReason = closeReason ?? .deadPeer
            context.close(promise: nil)
        case .closeUnverifiedConnection:
            let timeout = liveness?.verificationTimeout ?? ConnectionLiveness.defaultVerificationTimeout
            logger.warning("no answer to the ping within \(StatusLine.format(timeout)): dropping the connection")
            closeReason = closeReason ?? .deadPeer
            context.close(promise: nil)
        }
    }

    func receivedClose(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        let payload = frame.unmaskedData
        let code = payload.getInteger(at: payload.readerIndex, as: UInt16.self).map(Int.init)
        if isCloseSent {
            // The server answered our close: the handshake is complete.
            context.close(promise: nil)
            return
        }
        closeReason = closeReason ?? .closedByServer(code: code)
        var echo = context.channel.allocator.buffer(capacity: 2)
        if let code { echo.writeInteger(UInt16(code)) }
        isCloseSent = true
        write(.connectionClose, data: echo, context: context)
        context.flush()
        context.close(promise: nil)
    }

    /// Shutdown or reload: let pending commits finish and be acknowledged, then close 1000.
    /// Reading goes on, to see the server's answering close frame.
    func closeRequested(_ request: CloseRequested, context: ChannelHandlerContext) {
        guard !isCloseRequested else { return }
        isCloseRequested = true
        closeReason = closeReason ?? request.reason
        if commits.isIdle {
            sendClose(code: .normalClosure, context: context)
        }
        // Whatever happens, the channel is gone within the bound.
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.closeHandshakeTimeout) {
            self.context?.close(promise: nil)
        }
    }

    func sendClose(code: WebSocketErrorCode, context: ChannelHandlerContext) {
        guard !isCloseSent, context.channel.isActive else { return }
        isCloseSent = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        write(.connectionClose, data: data, context: context)
        context.flush()
        if isReadingPaused { setReading(true, context: context) }
        if closeTimer == nil {
            closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.closeHandshakeTimeout) {
                self.context?.close(promise: nil)
            }
        }
    }
}
