// SPDX-License-Identifier: Apache-2.0

/// The settings one `intrapush.conf` holds, read with `FlatTOML`.
struct ConfigurationFile {
    var path: String
    var settings: [ConfigurationKey: RawSetting] = [:]
    /// A TOML syntax error; after one, nothing else in the file can be trusted.
    var syntaxError: ConfigurationProblem?

    /// Parses `text`; tables and unknown keys go to `problems`.
    init(path: String, text: String, problems: inout ProblemCollector) {
        self.path = path
        let entries: [FlatTOML.Entry]
        do {
            entries = try FlatTOML.parse(text)
        } catch {
            syntaxError = ConfigurationProblem(
                key: nil, file: path, line: error.line, message: "not valid TOML: \(error.message) (column \(error.column))")
            return
        }
        for entry in entries {
            if entry.isTable {
                problems.add(
                    ConfigurationProblem(
                        key: entry.name, file: path, line: entry.line,
                        message: "tables are not supported; intrapush.conf is flat (write key = value lines only)"),
                    concerns: nil)
                continue
            }
            guard let key = ConfigurationKey(rawValue: entry.name) else {
                var message = "unknown key"
                if let suggestion = KeySuggestion.closest(to: entry.name, among: ConfigurationKey.allCases.map(\.rawValue)) {
                    message += "; did you mean \(suggestion)?"
                }
                problems.add(
                    ConfigurationProblem(key: entry.name, file: path, line: entry.line, message: message), concerns: nil)
                continue
            }
            settings[key] = RawSetting(value: entry.value, origin: .file(path: path, line: entry.line))
        }
    }
}
