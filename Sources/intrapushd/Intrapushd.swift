// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import CLinux
#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import IntrapushDaemonKit
import IntrapushSupport

/// `intrapushd`: keeps one WebSocket to the on-premises server and stores every push.
@main
struct Intrapushd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intrapushd",
        abstract: "Keep one WebSocket to the on-premises push server and store every notification.",
        discussion: """
            Configuration: /etc/intrapush/intrapush.conf (TOML), or --config / INTRAPUSH_CONFIG; \
            every key can be overridden with INTRAPUSH_<KEY>. Exit statuses: 0 after SIGTERM/SIGINT; \
            78 configuration error; 74 database cannot be opened, or the disk failed a sync; \
            75 another daemon answers on the local API's socket; 71 the socket or metrics_listen \
            cannot be made. See intrapushd(8).
            """,
        version: ProductVersion.upstream
    )

    @Option(name: .long, help: "The configuration file (default: $INTRAPUSH_CONFIG, else /etc/intrapush/intrapush.conf).")
    var config: String?

    @Flag(name: .long, help: "Validate the configuration, print the one in force (each key with the file and line it came from, the token as ***) and exit 0 or 78.")
    var checkConfig = false

    @Flag(name: .long, help: "With --check-config: print nothing when the configuration is valid (the unit's reload check).")
    var quiet = false

    func validate() throws {
        if quiet && !checkConfig { throw ValidationError("--quiet goes with --check-config") }
    }

    func run() throws {
        // Before the token is read: no core dump, and no other process of this user, may hold it.
        _ = intrapush_set_undumpable()
        let environment = ProcessEnvironment.current
        var configured = ConfigurationLoader(environment: environment)
        configured.clientIdentityCheck = ClientTLSIdentity.check  // tls_cert_file/tls_key_file parse and match
        configured.deriveHostIdentity = MachineHostIdentity.derive  // when host_id is unset
        let loader = configured
        let explicitPath = config
        let loaded: LoadedConfiguration
        do {
            loaded = try loader.load(explicitPath: explicitPath, purpose: .daemon)
        } catch {
            // The journal reads <3> as the error priority: always for the daemon, and for the
            // check when systemd runs it (the unit's reload check) rather than a person.
            let forJournal = !checkConfig || environment["JOURNAL_STREAM"] != nil
            for problem in error.problems {
                StandardError.writeLine(forJournal ? "<3>\(problem)" : "\(problem)")
            }
            throw ExitCode(78)
        }
        if checkConfig {
            for warning in loaded.warnings { StandardError.writeLine("warning: \(warning)") }
            if !quiet {
                if !loaded.files.isEmpty { print("# read: " + loaded.files.joined(separator: ", ")) }
                print(loaded.configuration.rendered(sources: loaded.sources), terminator: "")
            }
            return
        }
        let daemon = Daemon(loaded: loaded, reload: { () throws(ConfigurationError) in
            try loader.load(explicitPath: explicitPath, purpose: .daemon)
        })
        do {
            try daemon.runUntilStopped()
        } catch let exit as DaemonExit {
            throw ExitCode(exit.status)
        }
    }
}

