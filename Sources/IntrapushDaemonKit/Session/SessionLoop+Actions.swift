// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushSupport
import Logging
import NIOCore

extension SessionLoop {
    /// Performs what the session machine decided, in its order: the one place its actions happen.
    mutating func perform(_ actions: [SessionStateMachine<SystemRandomNumberGenerator>.Action], tasks: inout DiscardingTaskGroup) {
        for action in actions { perform(action, tasks: &tasks) }
    }

    private mutating func perform(_ action: SessionStateMachine<SystemRandomNumberGenerator>.Action, tasks: inout DiscardingTaskGroup) {
        switch action {
        case .connect(let id, let server):
            dial(id, toServer: server, tasks: &tasks)
        case .useConnection:
            waitTimer?.cancel()
            connectionOpened()
        case .scheduleReconnect(let delay, let attempt, let reason):
            scheduleReconnect(after: delay, attempt: attempt, reason: reason, tasks: &tasks)
        case .closeConnection(let id, let reason):
            // The handler drains pending commits, acknowledges them, then sends close 1000.
            // A channel that closed meanwhile needs nothing: its handler reports the close (from
            // handlerRemoved when channelInactive came before the handler did).
            channels[id]?.pipeline.fireUserInboundEventTriggered(CloseRequested(reason: reason))
        case .cancelConnectAttempt(let id):
            dials[id]?.cancel()
        case .discard(let id):
            dials.removeValue(forKey: id)?.cancel()
            channels.removeValue(forKey: id)?.close(promise: nil)
        case .waitForNetwork(let attempt, let lastFailure):
            waitForNetwork(attempt: attempt, lastFailure: lastFailure, tasks: &tasks)
        case .verifyConnection(let id):
            channels[id]?.pipeline.fireUserInboundEventTriggered(VerifyRequested(reason: "the network changed"))
        case .stop:
            isFinished = true
        case .scheduleFailback(let delay):
            scheduleFailback(after: delay, tasks: &tasks)
        case .probePrimary(let id):
            probePrimary(id, tasks: &tasks)
        case .switchToPrimary(let fallback, let primary):
            switchToPrimary(from: fallback, to: primary)
        }
    }

    private mutating func dial(_ id: ConnectionID, toServer server: Int, tasks: inout DiscardingTaskGroup) {
        waitTimer?.cancel()  // dialling now, whatever the backoff said
        let endpoint = currentEndpoint
        setStatus(StatusLine.connecting(to: configuration, server: server))
        logger.debug("connecting to \(endpoint.redactedURL)")
        persist { $0.nextAttemptAt = nil }
        startDial(id, toServer: server, tasks: &tasks)
    }

    /// Dials server `index` with a push handler of its own; its events, its success and its
    /// failure reach the loop under `id`.
    mutating func startDial(_ id: ConnectionID, toServer index: Int, tasks: inout DiscardingTaskGroup) {
        let cancellation = DialCancellation()
        dials[id] = cancellation
        let service = self.service
        let dialer: WebSocketDialer
        do {
            dialer = try self.dialer(forServer: index)
        } catch {
            // Building the TLS context failed: a bad ca_file, say. Retried with backoff like any failure.
            service.send(.dialFailed(.unreachable("TLS setup: \(error)"), id))
            return
        }
        let factory = PushConnectionHandlerFactory(
            settings: dialer.settings,
            committer: service.storeWorker,
            events: ConnectionEventSink { event in service.send(.connection(event, id)) },
            hook: hooks.current,
            outbox: service.outbox,
            metrics: service.metrics?.metrics,
            logger: logger
        )
        tasks.addTask {
            do throws(DialFailure) {
                let channel = try await dialer.dial(cancellation: cancellation, session: factory)
                service.send(.dialSucceeded(channel, id))
            } catch {
                service.send(.dialFailed(error.reason, id))
            }
        }
    }

    /// The dialer of one server for the current configuration, built once: its TLS context reads
    /// the trust store from disk, which need not happen on every reconnect.
    mutating func dialer(forServer index: Int) throws -> WebSocketDialer {
        if let dialer = dialers[index] { return dialer }
        let made = try WebSocketDialer(group: service.group, settings: configuration.connection(toServer: index))
        dialers[index] = made
        return made
    }

    private mutating func scheduleReconnect(
        after delay: Duration, attempt: Int, reason: DisconnectReason, tasks: inout DiscardingTaskGroup
    ) {
        let retryAt = WallClock.nowMilliseconds() &+ delay.milliseconds
        let next = configuration.hosts.count > 1 ? " to \(currentEndpoint.redactedURL)" : ""
        setStatus(StatusLine.reconnecting(in: delay, attempt: attempt, reason: reason) + next)
        if reason.isTokenRejection, case .handshakeRejected(let status) = reason {
            logger.error(
                "\(reason); retrying in \(delay.roundedText)\(next)",
                metadata: .event(.tokenRejected, ["server": currentEndpoint.redactedURL, "http_status": "\(status)"]))
        } else {
            logger.info("reconnecting in \(delay.roundedText) (attempt \(attempt))\(next)")
        }
        persist { state in
            state.connectedSince = nil
            state.reconnectAttempt = attempt
            state.nextAttemptAt = retryAt
            state.lastError = reason.description
            state.primaryUnreachableSince = primaryUnreachableSinceMilliseconds
        }
        waitTimer?.cancel()
        waitTimer = schedule(.reconnect, after: delay, tasks: &tasks)
    }

    /// No route to the server: no dial until the network monitor reports one (or the periodic
    /// look finds one). Renewed every `reconnect_max`, which keeps the live state fresh.
    private mutating func waitForNetwork(attempt: Int, lastFailure: DisconnectReason?, tasks: inout DiscardingTaskGroup) {
        let text = StatusLine.waitingForNetwork(to: configuration)
        if text != status { logger.notice("no route to \(configuration.host): waiting for network") }
        setStatus(text)
        persist { state in
            state.connectedSince = nil
            state.reconnectAttempt = attempt
            state.nextAttemptAt = nil
            if let lastFailure { state.lastError = lastFailure.description }
        }
        // A pending reconnect timer is void: the network decides now.
        waitTimer?.cancel()
        waitTimer = schedule(.networkRecheck, after: configuration.reconnectMax, tasks: &tasks)
    }

    func recordStopped() async {
        persistStopped()
        await service.storeWorker.flushLiveState()
        // The file outlives the daemon: it must say it stopped, not that it was connected.
        if let exporter = service.metrics, let path = configuration.metricsFile {
            try? await exporter.write(toFile: path, on: service.clock.eventLoop, logger: logger).get()
        }
    }

    private func persistStopped() {
        persist { state in
            state.state = .stopped  // the process ends, whatever the machine's last state
            state.connectedSince = nil
            state.nextAttemptAt = nil
        }
    }
}
