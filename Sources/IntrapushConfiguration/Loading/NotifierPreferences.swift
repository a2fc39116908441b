// SPDX-License-Identifier: Apache-2.0

/// The desktop agent's own settings: a person's choices, in `$XDG_CONFIG_HOME/intrapush/notifier.conf`
/// (flat TOML, like intrapush.conf), under the command line's options.
package struct NotifierPreferences: Sendable, Equatable {
    /// At start, and for a burst, the newest this many are shown one by one; the rest as one summary.
    package var catchUp: Int = 3
    /// A notification the person dismissed counts as read.
    package var markReadOnDismiss = false

    package static let catchUpRange = 0...20

    package init() {}

    /// A file that cannot be used, with the key (and line) at fault.
    package struct Problem: Error, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// The settings of the file at `path`; the defaults when there is no such file.
    package static func load(path: String) throws(Problem) -> NotifierPreferences {
        switch FileReader.readText(atPath: path) {
        case .success(let text):
            return try parse(text, path: path)
        case .failure(let failure) where failure.isMissing:
            return NotifierPreferences()
        case .failure(let failure):
            throw Problem(description: "\(path): \(failure.reason)")
        }
    }

    package static func parse(_ text: String, path: String) throws(Problem) -> NotifierPreferences {
        let entries: [FlatTOML.Entry]
        do {
            entries = try FlatTOML.parse(text)
        } catch {
            throw Problem(description: "\(path):\(error.line): \(error.message)")
        }
        var preferences = NotifierPreferences()
        for entry in entries {
            let place = "\(path):\(entry.line)"
            switch (entry.name, entry.value) {
            case ("catch_up", .integer(let count)) where !entry.isTable && catchUpRange.contains(count):
                preferences.catchUp = count
            case ("catch_up", _):
                throw Problem(description: "\(place): catch_up must be a whole number from 0 to 20")
            case ("mark_read_on_dismiss", .bool(let value)) where !entry.isTable:
                preferences.markReadOnDismiss = value
            case ("mark_read_on_dismiss", _):
                throw Problem(description: "\(place): mark_read_on_dismiss must be true or false")
            default:
                let known = ["catch_up", "mark_read_on_dismiss"]
                let hint = KeySuggestion.closest(to: entry.name, among: known).map { " (did you mean \($0)?)" } ?? ""
                throw Problem(description: "\(place): unknown key \(entry.name)\(hint); known: \(known.joined(separator: ", "))")
            }
        }
        return preferences
    }
}
