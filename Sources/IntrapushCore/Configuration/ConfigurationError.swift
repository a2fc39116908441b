/// Everything wrong with a configuration, gathered in one pass so that an administrator can fix
/// all of it at once; `intrapushd` prints `description` and exits 78 (EX_CONFIG).
public struct ConfigurationError: Error, CustomStringConvertible {
    public var problems: [ConfigurationProblem]

    public init(problems: [ConfigurationProblem]) {
        self.problems = problems
    }

    /// One line per problem.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}

/// One thing wrong with a configuration, located as precisely as the source allows.
///
/// `key` is the setting's name when the value came from the file, or the variable's name
/// (`INTRAPUSH_HEARTBEAT_INTERVAL`) when it came from the environment; `nil` for problems of the
/// file as a whole, such as a TOML syntax error. The message quotes the bad value, except for the
/// token, whose value appears nowhere.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    public var key: String?
    public var file: String?
    public var line: Int?
    public var message: String

    public init(key: String?, file: String?, line: Int?, message: String) {
        self.key = key
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: key: message`, leaving out what is unknown.
    public var description: String {
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
public struct LoadedConfiguration: Sendable {
    public var configuration: Configuration
    /// The file read, or `nil` when the environment alone was the configuration.
    public var file: String?
    /// Things worth telling the administrator that do not stop the daemon, such as an unknown
    /// `INTRAPUSH_*` variable; one line each.
    public var warnings: [String]

    public init(configuration: Configuration, file: String?, warnings: [String]) {
        self.configuration = configuration
        self.file = file
        self.warnings = warnings
    }
}
