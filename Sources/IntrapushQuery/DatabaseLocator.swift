// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration

/// Finds the database the way the daemon does (`ConfigurationLoader.locateDatabase`), in the
/// CLI's words when it cannot.
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

    /// Where the database is, and what else the configuration says (the rule is
    /// `ConfigurationLoader.locateDatabase`'s, shared with the desktop agent).
    package typealias Location = DatabaseLocation

    package func locate(database: String?, configurationFile: String?) throws(CommandFailure) -> Location {
        let loader = ConfigurationLoader(environment: environment, defaultFile: defaultConfigurationFile)
        do {
            return try loader.locateDatabase(database, configurationFile: configurationFile)
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
