// SPDX-License-Identifier: Apache-2.0

/// Where the database is, for the programs beside the daemon (the CLI, the desktop agent): the
/// daemon's own rule, with a command line's `--database` before it.
package struct DatabaseLocation: Sendable {
    package var path: String
    /// `nil` when `--database` or `INTRAPUSH_DATABASE` made reading the file unnecessary.
    package var configuration: Configuration?
    /// Worth showing: an unreadable default configuration file, say.
    package var warnings: [String]
}

extension ConfigurationLoader {
    /// `database` (a command line's `--database`), else `INTRAPUSH_DATABASE` unless a
    /// configuration file is named, else the `database` key of the configuration (`--config`,
    /// `INTRAPUSH_CONFIG`, the default file; its `INTRAPUSH_` overrides applied), else the default
    /// under `STATE_DIRECTORY` or `/var/lib/intrapush`. Only the database key is validated; the
    /// token is never read.
    package func locateDatabase(_ database: String?, configurationFile: String?) throws(ConfigurationError) -> DatabaseLocation {
        if let database, !database.isEmpty { return DatabaseLocation(path: database, configuration: nil, warnings: []) }
        if configurationFile == nil, let database = environment["INTRAPUSH_DATABASE"], !database.isEmpty {
            return DatabaseLocation(path: database, configuration: nil, warnings: [])
        }
        let loaded = try load(explicitPath: configurationFile, purpose: .databaseOnly)
        return DatabaseLocation(path: loaded.configuration.database, configuration: loaded.configuration, warnings: loaded.warnings)
    }
}
