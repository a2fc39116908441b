#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import IntrapushInterface
import IntrapushSupport

/// The desktop agent: one thread in one poll(2) over the database's directory (inotify), the
/// session bus and the stop signals, performing what `NotifierMachine` decides. Idle, it sleeps in
/// poll with no timeout at all.
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
        source = NotificationSource(path: configuration.databasePath, recipients: configuration.recipients)
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
        log("showing the notifications of \(configuration.databasePath) on the desktop (notification server: \(server))")
        let watcher = DatabaseChangeWatcher(databasePath: configuration.databasePath, outputDescriptor: -1)
        perform(machine.handle(.started), bus: bus)
        var pendingRechecks = ArraySlice<Int32>()
        while ending == nil {
            let timeout = [pendingRechecks.first, bus.timeoutMilliseconds()].compactMap { $0 }.min()
            switch watcher.wait(timeoutMilliseconds: timeout, other: bus.pollDescriptor) {
            case .stopRequested, .outputClosed:
                return .stopped
            case .databaseChanged:
                pendingRechecks = Self.recheckDelays[...]
                perform(machine.handle(.databaseChanged), bus: bus)
            case .timedOut:
                if !pendingRechecks.isEmpty {
                    pendingRechecks = pendingRechecks.dropFirst()
                    perform(machine.handle(.databaseChanged), bus: bus)
                }
            case .descriptorReady:
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
                perform(machine.handle(.heard(signal)), bus: bus)
            }
        }
        return ending ?? .stopped
    }

    /// inotify sees the daemon write its WAL before readers can see the rows (see `Follower`):
    /// a few quick looks after each change, then none.
    static let recheckDelays: [Int32] = [5, 20, 75, 250, 650]

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
            return machine.handle(.unreadFound(batch))
        case .show(let showing):
            // A server that went away mid-batch: the rest waits for the next one.
            guard machine.isServerPresent else { return [] }
            do {
                let id = try bus.notify(showing.notification)
                if configuration.verbose { log("notification \(showing.recordID.map(String.init) ?? "summary") shown as \(id)") }
                return machine.handle(.shown(showing, notificationID: id))
            } catch {
                log("the notification server did not take notification \(showing.recordID.map(String.init) ?? "summary"): \(error.message)")
                return machine.handle(.showFailed(showing, noServer: error.isNoServer))
            }
        case .markRead(let ids):
            return machine.handle(.markReadFinished(ids: ids, reachedDaemon: markRead(ids)))
        case .openLink(let link):
            if let reason = LinkOpener.open(link) { log("cannot start xdg-open: \(reason)") }
            return []
        case .saveCursor(let cursor):
            if let problem = cursorFile.save(cursor) { log(problem) }
            return []
        case .learnCapabilities:
            let capabilities = (try? bus.capabilities()) ?? []
            return machine.handle(.capabilitiesLearned(capabilities))
        }
    }

    private func readUnread(after cursor: Int64, bus: SessionBus) -> UnreadBatch? {
        let trouble = source.prepare()
        defer { lastTrouble = trouble }
        switch trouble {
        case nil:
            break
        case .notYet:
            if lastTrouble != trouble { log("waiting for intrapushd to create \(configuration.databasePath)") }
            return nil
        case .notPermitted(let reason):
            tellNotPermitted(reason, bus: bus)
            return nil
        case .unusable(let reason):
            if lastTrouble != trouble { log(reason + "; trying again when it changes") }
            return nil
        }
        do {
            return try source.unread(after: cursor, catchUp: configuration.settings.catchUp)
        } catch {
            log("cannot read \(configuration.databasePath): \(error); trying again when it changes")
            source.close()
            return nil
        }
    }

    /// Through the daemon, which sends the read receipt; `false` when it could not be reached.
    private func markRead(_ ids: [Int64]) -> Bool {
        let socket = Configuration.controlSocket(forDatabase: configuration.databasePath)
        do {
            let connection = try VarlinkConnection(path: socket)
            let reply = try connection.call(
                VarlinkCall(method: "io.intrapush.Notifications.MarkRead", parameters: ["ids": .array(ids.map { JSONValue($0) })]),
                timeout: .seconds(5))
            if let error = reply.error {
                log("intrapushd did not mark \(ids.count) notification(s) read: \(reply.parameters["message"]?.string ?? error)")
            }
            return true
        } catch {
            if configuration.verbose { log("intrapushd is not reachable; the read mark waits for it") }
            return false
        }
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
