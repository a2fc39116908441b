// SPDX-License-Identifier: Apache-2.0

/// Everything wrong with a configuration, gathered in one pass so that an administrator can fix
/// all of it at once; `intrapushd` prints `description` and exits 78 (EX_CONFIG).
package struct ConfigurationError: Error, CustomStringConvertible {
    package var problems: [ConfigurationProblem]

    package init(problems: [ConfigurationProblem]) {
        self.problems = problems
    }

    /// One line per problem.
    package var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}

/// One thing wrong with a configuration, located as precisely as the source allows.
///
/// `key` is the setting's name when the value came from the file, or the variable's name
/// (`INTRAPUSH_HEARTBEAT_INTERVAL`) when it came from the environment; `nil` for problems of the
/// file as a whole, such as a TOML syntax error. The message quotes the bad value, except for the
/// token, whose value appears nowhere.
package struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    package var key: String?
    package var file: String?
    package var line: Int?
    package var message: String

    package init(key: String?, file: String?, line: Int?, message: String) {
        self.key = key
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: key: message`, leaving out what is unknown.
    package var description: String {
        var text = ""
        if let file {
            text += file
            if let line { text += ":\(line)" }
            text += ": "
        }
        if let key { text += "\(key): " }
        return text + message
    }
}

/// The result of a successful load.
package struct LoadedConfiguration: Sendable {
    package var configuration: Configuration
    /// The files read, the main one (when it exists) first, then its drop-ins in order.
    package var files: [String]
    /// Where each key set came from (`/etc/intrapush/intrapush.conf.d/50-site.conf:3`,
    /// `INTRAPUSH_HOST in the environment`), by its name; a key not here has its default.
    package var sources: [String: String]
    /// Things worth telling the administrator that do not stop the daemon, such as an unknown
    /// `INTRAPUSH_*` variable; one line each.
    package var warnings: [String]

    package init(configuration: Configuration, files: [String], sources: [String: String] = [:], warnings: [String]) {
        self.configuration = configuration
        self.files = files
        self.sources = sources
        self.warnings = warnings
    }
}
