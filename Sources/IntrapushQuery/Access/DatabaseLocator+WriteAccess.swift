// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration

extension DatabaseLocator {
    /// What `send`, `request` and `mark-read` need: the database, and the configuration's keys of
    /// messages to the server (for writing when no daemon runs).
    /// The configuration is read once: `database` from it (with `INTRAPUSH_DATABASE` applied by
    /// the loader) unless `--database` names one.
    package func writer(database: String?, configurationFile: String?) throws(CommandFailure) -> (WriteAccess, warnings: [String]) {
        let loader = ConfigurationLoader(environment: environment, defaultFile: defaultConfigurationFile)
        do {
            let loaded = try loader.load(explicitPath: configurationFile, purpose: .outbox)
            let path = database.flatMap { $0.isEmpty ? nil : $0 } ?? loaded.configuration.database
            return (WriteAccess(databasePath: path, configuration: loaded.configuration), loaded.warnings)
        } catch {
            let problems = error.problems.map { "\($0)" }.joined(separator: "; ")
            throw CommandFailure(.configuration, "the configuration is not usable: \(problems)")
        }
    }
}
