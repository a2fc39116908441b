// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import IntrapushInterface
import IntrapushSupport

/// The desktop agent: one thread in one poll(2) over its subscription to the daemon's local API,
/// the session bus and the stop signals, performing what `NotifierMachine` decides. Idle, it
/// sleeps in poll with no timeout at all.
package final class NotifierAgent {
    package struct Options: Sendable {
        package var databasePath: String
        /// Where the cursor file lives (`$XDG_STATE_HOME/intrapush`).
        package var stateDirectory: String
        package var settings: NotifierMachine.Settings
        /// `nil`: every notification is for this person (no user entry to tell otherwise).
        package var recipients: RecipientFilter?
        package var verbose: Bool

        package init(
            databasePath: String, stateDirectory: String, settings: NotifierMachine.Settings,
            recipients: RecipientFilter?, verbose: Bool
        ) {
            self.databasePath = databasePath
            self.stateDirectory = stateDirectory
            self.settings = settings
            self.recipients = recipients
            self.verbose = verbose
        }
    }

    package enum Ending: Equatable {
        case stopped
        case anotherInstanceRuns
        case noSessionBus(String)
        case notPermitted(String)
        case sessionBusLost(String)
    }

    /// The name one agent per session owns.
    package static let busName = "org.intrapush.Notifier"

    let configuration: Options
    private let source: NotificationSource
    private let cursorFile: CursorFile
    private var machine: NotifierMachine
    private var ending: Ending?
    /// Each distinct trouble is said once, not at every change of the file.
    private var lastTrouble: NotificationSource.Trouble?

    package init(configuration: Options) {
        self.configuration = configuration
        source = NotificationSource(socketPath: Configuration.localAPISocket(forDatabase: configuration.databasePath))
        cursorFile = CursorFile(directory: configuration.stateDirectory, database: configuration.databasePath)
        machine = NotifierMachine(settings: configuration.settings, cursor: cursorFile.load())
    }

    package func run() -> Ending {
        LinkOpener.reapChildrenAutomatically()
        let bus: SessionBus
        do {
            bus = try SessionBus.connect()
            guard try bus.requestName(Self.busName) else { return .anotherInstanceRuns }
            try bus.watchNotificationServer()
        } catch {
            return .noSessionBus(error.message)
        }
        let server = (try? bus.serverDescription()) ?? "none yet"
        log("showing your notifications from intrapushd (\(source.socketPath); notification server: \(server))")
        let stopSignals = StopSignalPipe.install()
        perform(machine.started(), bus: bus)
        while ending == nil {
            // Subscribed, the agent sleeps until the daemon, the bus or a signal has something:
            // no timer at all. Without a daemon it looks again now and then, each time later.
            let retry = source.descriptor == nil ? retryDelays.first : nil
            let timeout = [retry, bus.timeoutMilliseconds()].compactMap { $0 }.min()
            switch Self.wait(timeout: timeout, stop: stopSignals.readDescriptor, bus: bus.pollDescriptor, subscription: source.descriptor) {
            case .stopRequested:
                return .stopped
            case .subscriptionReadable:
                if !source.drainSubscription() {
                    log("intrapushd went away; waiting for it")
                    retryDelays = Self.retryDelays[...]
                }
                perform(machine.databaseChanged(), bus: bus)
            case .timedOut:
                if retry != nil {
                    if retryDelays.count > 1 { retryDelays = retryDelays.dropFirst() }
                    perform(machine.databaseChanged(), bus: bus)
                }
            case .busReady:
                break
            }
            do {
                try bus.process()
            } catch {
                return .sessionBusLost(error.message)
            }
            for signal in bus.takeSignals() {
                if case .notificationServerChanged(let owner) = signal {
                    log(owner.isEmpty ? "the notification server went away; waiting for one" : "a notification server appeared")
                }
                perform(machine.heard(signal), bus: bus)
            }
        }
        return ending ?? .stopped
    }

    /// How long the agent waits before looking for a daemon again, the last repeated: a daemon
    /// restarting is back within the first few; one that is stopped costs a wake-up every 5 s.
    static let retryDelays: [Int32] = [250, 500, 1000, 2000, 5000]
    private var retryDelays = NotifierAgent.retryDelays[...]

    private enum Wake {
        case stopRequested, subscriptionReadable, busReady, timedOut
    }

    /// One poll(2) over the stop signals' pipe, the session bus and the subscription.
    private static func wait(
        timeout: Int32?, stop: Int32, bus: (descriptor: Int32, events: Int16), subscription: Int32?
    ) -> Wake {
        var descriptors = [
            pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
            pollfd(fd: subscription ?? -1, events: Int16(POLLIN), revents: 0),
            pollfd(fd: bus.descriptor, events: bus.events, revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout ?? -1)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return .timedOut }
            if descriptors[0].revents != 0 { return .stopRequested }
            if descriptors[1].revents != 0 { return .subscriptionReadable }
            return .busReady
        }
    }

    private func perform(_ actions: [NotifierMachine.Action], bus: SessionBus) {
        var queue = actions[...]
        while let action = queue.popFirst(), ending == nil {
            queue += perform(action, bus: bus)
        }
    }

    /// Does one action; what the machine decided about its outcome.
    private func perform(_ action: NotifierMachine.Action, bus: SessionBus) -> [NotifierMachine.Action] {
        switch action {
        case .scan(let cursor):
            guard let batch = readUnread(after: cursor, bus: bus) else { return [] }
            return machine.unreadFound(batch)
        case .show(let showing):
            // A server that went away mid-batch: the rest waits for the next one.
            guard machine.isServerPresent else { return [] }
            do {
                let id = try bus.notify(showing.notification)
                if configuration.verbose { log("notification \(showing.recordID.map(String.init) ?? "summary") shown as \(id)") }
                return machine.shown(showing, notificationID: id)
            } catch {
                log("the notification server did not take notification \(showing.recordID.map(String.init) ?? "summary"): \(error.message)")
                return machine.showFailed(showing, noServer: error.isNoServer)
            }
        case .markRead(let ids):
            return machine.markReadFinished(ids: ids, reachedDaemon: markRead(ids))
        case .openLink(let link):
            if let reason = LinkOpener.open(link) { log("cannot start xdg-open: \(reason)") }
            return []
        case .saveCursor(let cursor):
            if let problem = cursorFile.save(cursor) { log(problem) }
            return []
        case .learnCapabilities:
            let capabilities = (try? bus.capabilities()) ?? []
            return machine.capabilitiesLearned(capabilities)
        }
    }

    private func readUnread(after cursor: Int64, bus: SessionBus) -> UnreadBatch? {
        let trouble = source.prepare()
        defer { lastTrouble = trouble }
        switch trouble {
        case nil:
            break
        case .notYet:
            if lastTrouble != trouble { log("waiting for intrapushd to start (nothing answers on \(source.socketPath))") }
            return nil
        case .notPermitted(let reason):
            tellNotPermitted(reason, bus: bus)
            return nil
        case .unusable(let reason):
            if lastTrouble != trouble { log(reason + "; trying again") }
            return nil
        }
        do {
            return try source.unread(after: cursor, catchUp: configuration.settings.catchUp)
        } catch {
            log("cannot read your notifications from intrapushd: \(error.reason); trying again")
            source.close()
            return nil
        }
    }

    /// Through the daemon, which sends the read receipt; `false` when it could not be reached.
    private func markRead(_ ids: [Int64]) -> Bool {
        let reached = source.markRead(ids) { reason in
            log("intrapushd did not mark \(ids.count) notification(s) read: \(reason)")
        }
        if !reached, configuration.verbose { log("intrapushd is not reachable; the read mark waits for it") }
        return reached
    }

    private func tellNotPermitted(_ reason: String, bus: SessionBus) {
        let user = configuration.recipients?.names.first ?? "$USER"
        let advice = "Ask an administrator to run: sudo adduser \(user) intrapush — then log out and in again."
        ending = .notPermitted("\(reason). \(advice)")
        let notification = DesktopNotification(
            summary: "intrapush cannot show your notifications",
            body: "Your account may not read the notifications stored on this computer. \(advice)",
            actions: [], urgency: .normal, expireTimeout: 0)
        _ = try? bus.notify(notification)
    }

    private func log(_ line: String) {
        StandardError.writeLine("intrapush-notifier: " + line)
    }
}
