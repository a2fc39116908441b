// SPDX-License-Identifier: Apache-2.0

import CSystemd

/// Appends arguments to a message, with sd-bus's non-variadic calls. Each returns `false` when
/// sd-bus refused (bad UTF-8 cannot happen: Swift strings are valid, and NULs are removed first).
struct BusMessageWriter {
    let message: OpaquePointer

    mutating func append(string: String) -> Bool {
        string.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) } >= 0
    }

    mutating func append(uint32 value: UInt32) -> Bool {
        var value = value
        return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &value) >= 0
    }

    mutating func append(int32 value: Int32) -> Bool {
        var value = value
        return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "i")), &value) >= 0
    }

    mutating func append(strings: [String]) -> Bool {
        guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s") >= 0 else { return false }
        for string in strings where !append(string: string) { return false }
        return sd_bus_message_close_container(message) >= 0
    }

    /// An `a{sv}` of hints: each value a string (`s`) or a byte (`y`).
    mutating func append(hints: [(key: String, value: HintValue)]) -> Bool {
        guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}") >= 0 else { return false }
        for (key, value) in hints {
            guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv") >= 0, append(string: key)
            else { return false }
            switch value {
            case .string(let text):
                guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "s") >= 0, append(string: text)
                else { return false }
            case .byte(var byte):
                guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "y") >= 0,
                    sd_bus_message_append_basic(message, CChar(UInt8(ascii: "y")), &byte) >= 0
                else { return false }
            }
            guard sd_bus_message_close_container(message) >= 0, sd_bus_message_close_container(message) >= 0
            else { return false }
        }
        return sd_bus_message_close_container(message) >= 0
    }

    enum HintValue {
        case string(String)
        case byte(UInt8)
    }
}

/// Reads a message's arguments in order; `nil` when the next one is not of the type asked.
struct BusMessageReader {
    let message: OpaquePointer

    mutating func string() -> String? {
        var pointer: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &pointer) > 0, let pointer else { return nil }
        return String(cString: pointer)
    }

    mutating func uint32() -> UInt32? {
        var value: UInt32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &value) > 0 else { return nil }
        return value
    }

    /// An `as`, at most `limit` of its strings kept.
    mutating func strings(limit: Int = 256) -> [String]? {
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "s") > 0 else { return nil }
        var strings: [String] = []
        while let next = string() {
            if strings.count < limit { strings.append(next) }
        }
        guard sd_bus_message_exit_container(message) >= 0 else { return nil }
        return strings
    }
}
