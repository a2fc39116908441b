// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import NIOCore

/// SIGHUP: the configuration and the files it names are read, and the dialers of the servers
/// built (which read the CA, certificate and key files), on a thread of their own; the result
/// comes back as `configurationRead`. A slow or stuck file system then holds up the reload, never
/// the pushes, the heartbeats or the local API. A SIGHUP while a read runs is answered by one
/// more read after it.
extension SessionLoop {
    mutating func reloadRequested() {
        guard reloading == nil else {
            reloading = .again
            logger.notice("reload: the previous reload is still reading the configuration; reading again after it")
            return
        }
        reloading = .once
        service.notifier.reloading()
        logger.info("reloading the configuration")
        let service = self.service
        let current = configuration
        ConfigurationReading.pool.submit { _ in
            let result = Result(catching: { () throws(ConfigurationError) -> ReadConfiguration in
                let loaded = try service.reloadConfiguration()
                let new = loaded.configuration
                let requiresReconnect = new.connection != current.connection || new.hosts != current.hosts
                return ReadConfiguration(
                    loaded: loaded, requiresReconnect: requiresReconnect,
                    dialers: requiresReconnect ? Self.dialers(for: new, group: service.group) : [:])
            })
            service.send(.configurationRead(result))
        }
    }

    /// The dialers of every server, or none where one cannot be built: its dial then builds it
    /// again and reports why it failed, as before a reload.
    private static func dialers(for configuration: Configuration, group: any EventLoopGroup) -> [Int: WebSocketDialer] {
        var dialers: [Int: WebSocketDialer] = [:]
        for index in configuration.hosts.indices {
            dialers[index] = try? WebSocketDialer(group: group, settings: configuration.connection(toServer: index))
        }
        return dialers
    }

    mutating func configurationRead(_ result: Result<ReadConfiguration, ConfigurationError>, tasks: inout DiscardingTaskGroup) {
        let readAgain = reloading == .again
        reloading = nil
        defer { if readAgain { reloadRequested() } }
        let read: ReadConfiguration
        switch result {
        case .success(let value):
            read = value
        case .failure(let error):
            for problem in error.problems {
                logger.error("reload: \(problem)")
            }
            logger.error(
                "reload failed; still running with the previous configuration",
                metadata: .event(.reloadRejected, ["problems": error.problems.map(\.description).joined(separator: "; ")]))
            service.notifier.ready(status: status)
            return
        }
        let loaded = read.loaded
        for warning in loaded.warnings { logger.warning("\(warning)") }
        let new = loaded.configuration
        let requiresReconnect = read.requiresReconnect
        if new.database != configuration.database {
            logger.warning("database moves to \(new.database) only after a restart")
        }
        if new.metricsListen != configuration.metricsListen || new.metricsFile != configuration.metricsFile {
            logger.warning("metrics_listen and metrics_file change only after a restart")
        }
        service.outbox.settingsChanged(new.outbox)
        service.logLevel.level = new.logLevel.loggerLevel
        if requiresReconnect {
            dialers = read.dialers  // a new ca_file or host needs new ones, built with the rest
        }
        configuration = new
        reloadedHookAndRetention(new, tasks: &tasks)
        logger.info(requiresReconnect ? "connection settings changed: reconnecting" : "configuration reloaded; connection kept")
        let backoff = Backoff(minimum: new.reconnectMin, maximum: new.reconnectMax)
        perform(
            machine.reloaded(
                requiresReconnect: requiresReconnect, backoff: backoff, serverCount: new.hosts.count,
                failbackInterval: .some(new.failbackInterval)),
            tasks: &tasks)
        checkRoute(tasks: &tasks)  // a new host may be reachable where the old one was not
        service.notifier.ready(status: status)
    }
}

/// What a reload read, off the loop: the configuration, whether its connection settings differ
/// from those the reload started with, and then the new dialers.
struct ReadConfiguration: Sendable {
    var loaded: LoadedConfiguration
    var requiresReconnect: Bool
    var dialers: [Int: WebSocketDialer]
}

/// A reload under way; `again`: another SIGHUP came meanwhile, and one more read follows.
enum ReloadProgress: Sendable {
    case once, again
}

enum ConfigurationReading {
    /// Started at the first reload; lives as long as the daemon (a read stuck on a dead file
    /// system holds this thread only).
    static let pool = WorkerThread(name: .reload)
}
