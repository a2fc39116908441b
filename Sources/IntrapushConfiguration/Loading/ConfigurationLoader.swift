// SPDX-License-Identifier: Apache-2.0

/// Reads the configuration: the file, its drop-ins, then the `INTRAPUSH_<KEY>` environment
/// overrides, then the token, validating everything and reporting every problem at once.
///
/// The file is `--config PATH` when given, else `INTRAPUSH_CONFIG`, else
/// `/etc/intrapush/intrapush.conf`; then every `*.conf` in the directory beside it named like it
/// with `.d` (`/etc/intrapush/intrapush.conf.d/`), in lexical order, a later one's key winning,
/// as systemd reads its own drop-ins. When no file is named and the default one does not exist,
/// its drop-ins and the environment are the configuration.
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
    /// to read, what the `on_notification` hook is given, and the power-cut test's switches
    /// (read by the daemon, which says when one is in force).
    static let nonKeyVariables: Set<String> = [
        "INTRAPUSH_CONFIG", "INTRAPUSH_ID", "INTRAPUSH_MESSAGE_ID", "INTRAPUSH_TITLE", "INTRAPUSH_BODY",
        "INTRAPUSH_TEST_CHECKPOINT_THRESHOLD", "INTRAPUSH_TEST_NO_CHECKPOINTER",
    ]

    let environment: [String: String]
    let defaultFile: String
    let defaultTokenFile: String
    /// Where the package seals the token when the default file is not there.
    let defaultSealedTokenFile: String
    /// Parses a client certificate and key (`intrapushd` passes NIOSSL's check); without one,
    /// only readability is checked.
    package var clientIdentityCheck: ClientIdentityCheck?
    /// Derives this host's identity when `host_id` is unset (`intrapushd` passes systemd's).
    package var deriveHostIdentity: HostIdentityDerivation?

    /// - Parameters:
    ///   - environment: the process environment, for overrides, `CREDENTIALS_DIRECTORY` and `STATE_DIRECTORY`.
    ///   - defaultFile: the file read when none is named; tests point it elsewhere.
    ///   - defaultTokenFile: the token file when neither `token_file` nor `CREDENTIALS_DIRECTORY` says otherwise.
    ///   - defaultSealedTokenFile: the package's sealed token, read when `defaultTokenFile` is not there.
    package init(
        environment: [String: String],
        defaultFile: String = Configuration.Defaults.configurationFile,
        defaultTokenFile: String = Configuration.Defaults.tokenFile,
        defaultSealedTokenFile: String = Configuration.Defaults.sealedTokenFile
    ) {
        self.environment = environment
        self.defaultFile = defaultFile
        self.defaultTokenFile = defaultTokenFile
        self.defaultSealedTokenFile = defaultSealedTokenFile
    }

    /// Loads and validates the configuration, throwing every problem found.
    package func load(explicitPath: String?, purpose: Purpose) throws(ConfigurationError) -> LoadedConfiguration {
        var warnings: [String] = []
        var problems = ProblemCollector()
        let namedPath = explicitPath ?? environment["INTRAPUSH_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let mainPath = namedPath ?? defaultFile
        let file = try readFile(mainPath, isNamed: namedPath != nil, purpose: purpose, problems: &problems, warnings: &warnings)
        let dropIns = try readDropIns(of: mainPath, purpose: purpose, problems: &problems, warnings: &warnings)

        var settings: [ConfigurationKey: RawSetting] = [:]
        for read in [file].compactMap({ $0 }) + dropIns {
            settings.merge(read.settings) { _, later in later }
        }
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
        let sources = settings.mapValues { setting -> String in
            switch setting.origin {
            case .file(let path, let line): line.map { "\(path):\($0)" } ?? path
            case .environment(let variable): "\(variable) in the environment"
            }
        }
        return LoadedConfiguration(
            configuration: configuration, files: [file?.path].compactMap { $0 } + dropIns.map(\.path),
            sources: Dictionary(uniqueKeysWithValues: sources.map { ($0.key.rawValue, $0.value) }), warnings: warnings)
    }

    /// The file's settings; `nil` when it is the default one and does not exist.
    private func readFile(
        _ path: String, isNamed: Bool, purpose: Purpose, problems: inout ProblemCollector, warnings: inout [String]
    ) throws(ConfigurationError) -> ConfigurationFile? {
        switch FileReader.readText(atPath: path) {
        case .success(let text):
            let file = ConfigurationFile(path: path, text: text, problems: &problems)
            if let syntaxError = file.syntaxError { throw ConfigurationError(problems: [syntaxError]) }
            return file
        case .failure(let failure) where !isNamed && failure.isMissing:
            return nil
        case .failure(let failure) where !isNamed && purpose != .daemon:
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
