// SPDX-License-Identifier: Apache-2.0

/// Reads each setting as its key's type, reporting a mismatch as a problem that names the expected
/// type and quotes the bad value (never the token's).
///
/// Every accessor returns `nil` both when the key is absent and when its value is bad; the caller
/// then falls back to the default, so that one pass finds every problem.
struct SettingReader {
    var settings: [ConfigurationKey: RawSetting]
    /// The configuration file, for problems about keys that are absent from it.
    var file: String?
    var problems = ProblemCollector()

    static let durationExpectation = #"expected a duration like 10, "250ms", "10s", "5min", "1h" or "7d""#
    static let sizeExpectation = #"expected a size in bytes like 1048576, "64KiB" or "1MiB""#

    func isSet(_ key: ConfigurationKey) -> Bool { settings[key] != nil }

    /// The value as written, for a key that takes more than one type (`host`: a string or a list).
    func rawValue(_ key: ConfigurationKey) -> RawSetting.Value? { settings[key]?.value }

    func origin(of key: ConfigurationKey) -> RawSetting.Origin? { settings[key]?.origin }

    /// Records that `key`'s value is wrong; the message gets ` (was <value>)` unless the key is secret.
    mutating func reject(_ key: ConfigurationKey, _ message: String) {
        var text = message
        if !key.isSecret, let value = settings[key]?.value { text += " (was \(value.quoted))" }
        problems.report(key, at: origin(of: key), file: file, text)
    }

    /// A problem about `key` that does not concern its value (it is missing, or a file it names is bad).
    mutating func report(_ key: ConfigurationKey, _ message: String) {
        problems.report(key, at: origin(of: key), file: file, message)
    }

    mutating func string(_ key: ConfigurationKey) -> String? {
        switch settings[key]?.value {
        case nil: return nil
        case .string(let text), .environment(let text): return text
        default:
            reject(key, "expected a string")
            return nil
        }
    }

    /// A list of strings: a TOML array of strings, or in the environment one item per line.
    mutating func strings(_ key: ConfigurationKey, example: String) -> [String]? {
        switch settings[key]?.value {
        case nil: return nil
        case .strings(let list): return list
        case .environment(let text):
            return text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.trimmingWhitespace().isEmpty }
        default:
            reject(key, "expected an array of strings like \(example)")
            return nil
        }
    }

    mutating func bool(_ key: ConfigurationKey) -> Bool? {
        switch settings[key]?.value {
        case nil: return nil
        case .bool(let flag): return flag
        case .environment(let text):
            switch text.trimmingWhitespace().lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default:
                reject(key, "expected true, false, yes, no, 1 or 0")
                return nil
            }
        default:
            reject(key, "expected a boolean, true or false")
            return nil
        }
    }

    mutating func integer(_ key: ConfigurationKey) -> Int? {
        switch settings[key]?.value {
        case nil: return nil
        case .integer(let number): return number
        case .environment(let text):
            if let number = Int(text.trimmingWhitespace()) { return number }
            fallthrough
        default:
            reject(key, "expected an integer")
            return nil
        }
    }

    /// A duration greater than zero (or zero itself, where that means "never").
    mutating func duration(_ key: ConfigurationKey, allowsZero: Bool = false) -> Duration? {
        let parsed: Duration?
        switch settings[key]?.value {
        case nil: return nil
        case .integer(let seconds): parsed = DurationParser.duration(seconds: Double(seconds))
        case .double(let seconds): parsed = DurationParser.duration(seconds: seconds)
        case .string(let text), .environment(let text): parsed = DurationParser.parse(text)
        default: parsed = nil
        }
        guard let parsed else {
            if case .integer(let number) = settings[key]?.value, number < 0 {
                reject(key, "must be greater than 0")
            } else if case .double(let number) = settings[key]?.value, number < 0 {
                reject(key, "must be greater than 0")
            } else {
                reject(key, Self.durationExpectation)
            }
            return nil
        }
        guard parsed > .zero || (allowsZero && parsed == .zero) else {
            reject(key, allowsZero ? "must be 0 or more" : "must be greater than 0")
            return nil
        }
        return parsed
    }

    /// A number of bytes: an integer, or a string with `B`, `KiB`, `MiB` or `GiB`.
    mutating func byteCount(_ key: ConfigurationKey) -> Int? {
        switch settings[key]?.value {
        case nil: return nil
        case .integer(let number): return number
        case .string(let text), .environment(let text):
            if let number = Self.parseByteCount(text) { return number }
            fallthrough
        default:
            reject(key, Self.sizeExpectation)
            return nil
        }
    }

    static func parseByteCount(_ text: String) -> Int? {
        let trimmed = text.trimmingWhitespace()
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        let multiplier: Int
        switch trimmed.dropFirst(digits.count).trimmingWhitespace() {
        case "", "B": multiplier = 1
        case "KiB": multiplier = 1 << 10
        case "MiB": multiplier = 1 << 20
        case "GiB": multiplier = 1 << 30
        default: return nil
        }
        guard !digits.isEmpty, digits.count <= 12, let number = Int(digits) else { return nil }
        return number * multiplier
    }
}
