// SPDX-License-Identifier: Apache-2.0

/// Gathers problems while a configuration is read, each tagged with the key it concerns so that a
/// database-only load can keep just the ones that matter to it.
struct ProblemCollector {
    struct Entry {
        var problem: ConfigurationProblem
        /// The setting at fault; `nil` for problems of the file as a whole (syntax, unknown keys).
        var concerns: ConfigurationKey?
    }

    private(set) var entries: [Entry] = []

    /// A problem with the value of `key`, located where that value came from.
    mutating func report(_ key: ConfigurationKey, at origin: RawSetting.Origin?, file: String?, _ message: String) {
        switch origin {
        case .file(let path, let line):
            add(ConfigurationProblem(key: key.rawValue, file: path, line: line, message: message), concerns: key)
        case .environment(let variable):
            add(ConfigurationProblem(key: variable, file: nil, line: nil, message: message), concerns: key)
        case nil:
            add(ConfigurationProblem(key: key.rawValue, file: file, line: nil, message: message), concerns: key)
        }
    }

    mutating func add(_ problem: ConfigurationProblem, concerns key: ConfigurationKey?) {
        entries.append(Entry(problem: problem, concerns: key))
    }

    /// The problems in reading order: those with a line by file (the main file, then its
    /// drop-ins, whose paths sort after it) and line, then the rest as reported.
    func problems(keeping include: (ConfigurationKey?) -> Bool = { _ in true }) -> [ConfigurationProblem] {
        let kept = entries.filter { include($0.concerns) }.map(\.problem)
        let located = kept.filter { $0.line != nil }.sorted { ($0.file ?? "", $0.line!) < ($1.file ?? "", $1.line!) }
        return located + kept.filter { $0.line == nil }
    }
}
