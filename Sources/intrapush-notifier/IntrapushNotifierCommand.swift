// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import IntrapushInterface
import IntrapushNotifier
import IntrapushSupport

/// `intrapush-notifier`: shows each notification intrapushd stores on the desktop of the person
/// logged in, and tells the daemon when they have read it.
@main
struct IntrapushNotifierCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intrapush-notifier",
        abstract: "Show the notifications intrapushd stores as desktop notifications.",
        discussion: """
            Runs in a graphical session (the systemd user unit intrapush-notifier.service, or \
            the session's autostart), one per session. Each new notification is shown through \
            org.freedesktop.Notifications; "Mark as read" marks it read through intrapushd, \
            which sends the server its read receipt. At start it shows what arrived unread since \
            it last ran: the newest few, and the rest as one summary.

            Settings: $XDG_CONFIG_HOME/intrapush/notifier.conf (catch_up, mark_read_on_dismiss), \
            under these options. The user must be in the group intrapush.

            Exit statuses: 0 stopped, or another instance runs in this session; 69 no session \
            bus; 77 this user may not read the notifications; 78 configuration error.
            """,
        version: ProductVersion.upstream
    )

    @Option(help: ArgumentHelp("The database (default: as intrapushd finds it).", valueName: "path"))
    var database: String?

    @Option(help: ArgumentHelp("intrapush.conf, read for its database key only.", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("Where the agent remembers what it has shown (default: $XDG_STATE_HOME/intrapush).", valueName: "directory"))
    var stateDirectory: String?

    @Option(help: ArgumentHelp("Show the newest this many one by one at start and in a burst, the rest as one summary (0-20, default 3).", valueName: "count"))
    var catchUp: Int?

    @Flag(help: "A notification you dismiss counts as read.")
    var markReadOnDismiss = false

    @Flag(help: "Say each notification shown.")
    var verbose = false

    func validate() throws {
        if let catchUp, !NotifierPreferences.catchUpRange.contains(catchUp) {
            throw ValidationError("--catch-up takes 0 to 20, not \(catchUp).")
        }
    }

    func run() throws {
        let environment = ProcessEnvironment.current
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        var preferences: NotifierPreferences
        do {
            preferences = try NotifierPreferences.load(path: configHome + "/intrapush/notifier.conf")
        } catch {
            fail(78, error.description)
        }
        if let catchUp { preferences.catchUp = catchUp }
        if markReadOnDismiss { preferences.markReadOnDismiss = true }
        let options = NotifierAgent.Options(
            databasePath: locateDatabase(environment: environment),
            stateDirectory: stateDirectory ?? stateHome + "/intrapush",
            settings: NotifierMachine.Settings(catchUp: preferences.catchUp, markReadOnDismiss: preferences.markReadOnDismiss),
            recipients: RecipientFilter.currentUser(),
            verbose: verbose)
        switch NotifierAgent(configuration: options).run() {
        case .stopped:
            return
        case .anotherInstanceRuns:
            StandardError.writeLine("intrapush-notifier: another intrapush-notifier runs in this session already; leaving it to show the notifications")
        case .noSessionBus(let reason):
            fail(69, "\(reason); is this a desktop session? (DBUS_SESSION_BUS_ADDRESS)")
        case .notPermitted(let reason):
            fail(77, reason)
        case .sessionBusLost(let reason):
            fail(69, "\(reason); the session has ended")
        }
    }

    /// As intrapushd finds it (`ConfigurationLoader.locateDatabase`, the CLI's rule too).
    private func locateDatabase(environment: [String: String]) -> String {
        let loader = ConfigurationLoader(environment: environment, defaultFile: Configuration.Defaults.configurationFile)
        do {
            return try loader.locateDatabase(database, configurationFile: config).path
        } catch {
            fail(78, "the configuration is not usable: " + error.problems.map { "\($0)" }.joined(separator: "; "))
        }
    }

    private func fail(_ status: Int32, _ message: String) -> Never {
        StandardError.writeLine("intrapush-notifier: " + message)
        Glibc.exit(status)
    }
}
