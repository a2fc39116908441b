#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration

/// Finds the database the way the daemon does: `--database`, else `INTRAPUSH_DATABASE`, else the
/// `database` key of the configuration file (`--config`, `INTRAPUSH_CONFIG`, the default path),
/// else the default. Only the database key is validated; the token is never read.
package struct DatabaseLocator: Sendable {
    let environment: [String: String]
    let defaultConfigurationFile: String

    package init(
        environment: [String: String],
        defaultConfigurationFile: String = Configuration.Defaults.configurationFile
    ) {
        self.environment = environment
        self.defaultConfigurationFile = defaultConfigurationFile
    }

    /// Where the database is, and what else the configuration says.
    package struct Location: Sendable {
        package var path: String
        /// `nil` when `--database` or `INTRAPUSH_DATABASE` made reading the file unnecessary.
        package var configuration: Configuration?
        /// Worth showing: an unreadable default configuration file, say.
        package var warnings: [String]
    }

    package func locate(database: String?, configurationFile: String?) throws(CommandFailure) -> Location {
        if let database, !database.isEmpty { return Location(path: database, configuration: nil, warnings: []) }
        if let database = environment["INTRAPUSH_DATABASE"], !database.isEmpty, configurationFile == nil {
            return Location(path: database, configuration: nil, warnings: [])
        }
        let loader = ConfigurationLoader(environment: environment, defaultFile: defaultConfigurationFile)
        do {
            let loaded = try loader.load(explicitPath: configurationFile, purpose: .databaseOnly)
            return Location(path: loaded.configuration.database, configuration: loaded.configuration, warnings: loaded.warnings)
        } catch {
            let problems = error.problems.map { "\($0)" }.joined(separator: "; ")
            throw CommandFailure(.configuration, "the configuration is not usable: \(problems)")
        }
    }

    /// Fails with "no database" (66) before SQLite gets to say something vaguer.
    package static func requireExisting(_ path: String) throws(CommandFailure) {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == EACCES {
                throw CommandFailure(
                    .permissionDenied,
                    "permission denied to reach \(path); run as root or as a member of the group that owns it")
            }
            throw CommandFailure.noDatabase(path)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw CommandFailure(.noDatabase, "\(path) is a directory, not a database file")
        }
    }
}
