/// Reads the configuration: the file, then the `INTRAPUSH_<KEY>` environment overrides, then the
/// token, validating everything and reporting every problem at once.
///
/// The file is `--config PATH` when given, else `INTRAPUSH_CONFIG`, else
/// `/etc/intrapush/intrapush.conf`; when no file is named and the default one does not exist, the
/// environment alone is the configuration.
package struct ConfigurationLoader: Sendable {
    /// What the configuration is loaded for.
    package enum Purpose: Sendable {
        /// Everything is required and checked, and the token is read.
        case daemon
        /// Only the database location matters (the CLI, run by an operator who cannot read the
        /// token): TOML syntax, unknown keys and `database` are checked, other values that are
        /// bad fall back to their defaults, and the token file is not read.
        case databaseOnly
        /// The CLI writing without a daemon: the database and the keys of messages to the server.
        case outbox
    }

    /// Variables with the `INTRAPUSH_` prefix that are not keys but are ours all the same: the file
    /// to read, and what the `on_notification` hook is given.
    static let nonKeyVariables: Set<String> = [
        "INTRAPUSH_CONFIG", "INTRAPUSH_ID", "INTRAPUSH_MESSAGE_ID", "INTRAPUSH_TITLE", "INTRAPUSH_BODY",
    ]

    let environment: [String: String]
    let defaultFile: String
    let defaultTokenFile: String
    /// Parses a client certificate and key (`intrapushd` passes NIOSSL's check); without one,
    /// only readability is checked.
    package var clientIdentityCheck: ClientIdentityCheck?

    /// - Parameters:
    ///   - environment: the process environment, for overrides, `CREDENTIALS_DIRECTORY` and `STATE_DIRECTORY`.
    ///   - defaultFile: the file read when none is named; tests point it elsewhere.
    ///   - defaultTokenFile: the token file when neither `token_file` nor `CREDENTIALS_DIRECTORY` says otherwise.
    package init(
        environment: [String: String],
        defaultFile: String = Configuration.Defaults.configurationFile,
        defaultTokenFile: String = Configuration.Defaults.tokenFile
    ) {
        self.environment = environment
        self.defaultFile = defaultFile
        self.defaultTokenFile = defaultTokenFile
    }

    /// Loads and validates the configuration, throwing every problem found.
    package func load(explicitPath: String?, purpose: Purpose) throws(ConfigurationError) -> LoadedConfiguration {
        var warnings: [String] = []
        var problems = ProblemCollector()
        let file = try readFile(explicitPath: explicitPath, purpose: purpose, problems: &problems, warnings: &warnings)

        var settings = file?.settings ?? [:]
        settings.merge(environmentSettings(warnings: &warnings)) { _, environment in environment }
        var reader = SettingReader(settings: settings, file: file?.path, problems: problems)
        let configuration = makeConfiguration(reader: &reader, purpose: purpose, warnings: &warnings)

        let found = reader.problems.problems { key in
            switch purpose {
            case .daemon: true
            case .databaseOnly: key == nil || key == .database
            case .outbox: key == nil || key == .database || key == .maxMessageSize || key.map(ConfigurationKey.outboxKeys.contains) == true
            }
        }
        guard found.isEmpty else { throw ConfigurationError(problems: found) }
        return LoadedConfiguration(configuration: configuration, file: file?.path, warnings: warnings)
    }

    /// The file's settings; `nil` when the environment alone is the configuration.
    private func readFile(
        explicitPath: String?, purpose: Purpose, problems: inout ProblemCollector, warnings: inout [String]
    ) throws(ConfigurationError) -> ConfigurationFile? {
        let namedPath = explicitPath ?? environment["INTRAPUSH_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = namedPath ?? defaultFile
        switch FileReader.readText(atPath: path) {
        case .success(let text):
            let file = ConfigurationFile(path: path, text: text, problems: &problems)
            if let syntaxError = file.syntaxError { throw ConfigurationError(problems: [syntaxError]) }
            return file
        case .failure(let failure) where namedPath == nil && failure.isMissing:
            return nil
        case .failure(let failure) where namedPath == nil && purpose != .daemon:
            warnings.append("\(path): cannot read the configuration file (\(failure.reason)); using the environment and defaults")
            return nil
        case .failure(let failure):
            let problem = ConfigurationProblem(
                key: nil, file: path, line: nil, message: "cannot read the configuration file: \(failure.reason)")
            throw ConfigurationError(problems: [problem])
        }
    }

    /// The `INTRAPUSH_<KEY>` overrides; other `INTRAPUSH_*` variables are warned about, since a
    /// misspelt override would otherwise be silently ignored.
    private func environmentSettings(warnings: inout [String]) -> [ConfigurationKey: RawSetting] {
        var settings: [ConfigurationKey: RawSetting] = [:]
        for (name, value) in environment.sorted(by: { $0.key < $1.key })
        where name.hasPrefix(ConfigurationKey.environmentPrefix) {
            if let key = ConfigurationKey(environmentVariable: name) {
                settings[key] = RawSetting(value: .environment(value), origin: .environment(variable: name))
            } else if !Self.nonKeyVariables.contains(name) {
                var warning = "\(name): not a configuration variable, ignored"
                let suffix = String(name.dropFirst(ConfigurationKey.environmentPrefix.count))
                if let key = KeySuggestion.closest(to: suffix, among: ConfigurationKey.allCases.map(\.rawValue)) {
                    warning += "; did you mean \(ConfigurationKey(rawValue: key)!.environmentVariable)?"
                }
                warnings.append(warning)
            }
        }
        return settings
    }
}
