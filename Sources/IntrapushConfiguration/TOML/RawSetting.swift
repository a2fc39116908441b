// SPDX-License-Identifier: Apache-2.0

/// A value as the file or the environment gave it, before it is checked against its key's type.
struct RawSetting {
    enum Value {
        case string(String)
        case integer(Int)
        case double(Double)
        case bool(Bool)
        /// A TOML array whose every element is a string.
        case strings([String])
        /// A TOML value of another type: a date, an array, an inline table.
        case other(typeName: String)
        /// An environment variable: text to be read as the key's type.
        case environment(String)
    }

    enum Origin: Equatable {
        case file(path: String, line: Int?)
        case environment(variable: String)
    }

    var value: Value
    var origin: Origin
}

extension RawSetting.Value {
    /// The value as a message quotes it: `"10 parsecs"`, `42`, `true`, `an array`.
    var quoted: String {
        switch self {
        case .string(let text), .environment(let text): text.debugDescription
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        case .strings(let list): "[" + list.map(\.debugDescription).joined(separator: ", ") + "]"
        case .other(let typeName): typeName
        }
    }
}
