// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import NIOCore
import NIOWebSocket

extension PushConnectionHandler {
    func armLivenessTimer(context: ChannelHandlerContext, at instant: ContinuousClock.Instant) {
        livenessTimer?.cancel()
        let delay = max(.zero, instant - ContinuousClock.now)
        livenessTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(delay.nanoseconds)) {
            self.livenessTimerFired()
        }
    }

    private func livenessTimerFired() {
        guard let context, var timers = liveness else { return }
        let slept = suspendDetector.observedNow()
        if let slept {
            logger.notice("the system slept for \(Int(slept.secondsValue.rounded())) s; checking the connection")
        }
        let action = timers.timerFired(at: .now, slept: slept)
        liveness = timers
        perform(action, context: context)
    }

    /// The session asks for the connection to be verified now (the network changed).
    func verifyRequested(_ request: VerifyRequested, context: ChannelHandlerContext) {
        guard var timers = liveness, machine.mayWriteDataFrames else { return }
        logger.info("\(request.reason); checking the connection with a ping")
        let action = timers.verificationRequested(at: .now)
        liveness = timers
        perform(action, context: context)
    }

    private func perform(_ action: ConnectionLiveness.Action, context: ChannelHandlerContext) {
        switch action {
        case .sendHeartbeat(let wakeAt):
            if machine.mayWriteDataFrames {
                var text = context.channel.allocator.buffer(capacity: settings.heartbeatText.utf8.count)
                text.writeString(settings.heartbeatText)
                write(.text, data: text, context: context)
                write(.ping, data: context.channel.allocator.buffer(capacity: 0), context: context)
                context.flush()
                events.send(.heartbeatSent(atMilliseconds: WallClock.nowMilliseconds()))
            }
            armLivenessTimer(context: context, at: wakeAt)
        case .sendPing(let wakeAt):
            if machine.mayWriteDataFrames {
                write(.ping, data: context.channel.allocator.buffer(capacity: 0), context: context)
                context.flush()
            }
            armLivenessTimer(context: context, at: wakeAt)
        case .wait(let until):
            armLivenessTimer(context: context, at: until)
        case .closeDeadConnection:
            logger.warning("nothing received for \(settings.deadPeerTimeout): dropping the connection")
            perform(machine.connectionFailed(.deadPeer), context: context)
        case .closeUnverifiedConnection:
            let timeout = liveness?.verificationTimeout ?? ConnectionLiveness.defaultVerificationTimeout
            logger.warning("no answer to the ping within \(timeout.roundedText): dropping the connection")
            perform(machine.connectionFailed(.deadPeer), context: context)
        }
    }
}
