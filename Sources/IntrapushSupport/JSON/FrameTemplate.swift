// SPDX-License-Identifier: Apache-2.0

/// A frame's text with a placeholder (`{id}`, `{token}`) to fill, filled the way its template needs.
///
/// Decided once, when the setting is read. A template is *JSON-shaped* when it parses as a JSON
/// object, array or string with each placeholder replaced by `0`: then a placeholder inside a string literal takes the
/// value escaped as that string's content, and one outside takes the value as a JSON value (a
/// string literal, a number's digits, `null` for none), so that the frame is always JSON that
/// names its value. Any other template (`ack {id}`) takes the value's text as it is. The same
/// rule reads the value back out of a frame of the template's form (the server's acknowledgement).
package struct FrameTemplate: Sendable, Equatable {
    /// Where a placeholder sits, which decides how a value is written there.
    package enum Slot: Sendable, Equatable {
        /// Not JSON-shaped: the value's text as it is.
        case raw
        /// Inside a JSON string literal: the content of a string, escaped.
        case inString
        /// Elsewhere in a JSON text: a whole JSON value.
        case value
    }

    package let text: String
    package let placeholder: String
    /// The texts around the placeholders: one more than `slots`.
    private let literals: [String]
    package let slots: [Slot]

    package init(_ text: String, placeholder: String) {
        self.text = text
        self.placeholder = placeholder
        let literals = text.split(separator: placeholder, omittingEmptySubsequences: false).map(String.init)
        self.literals = literals
        let raw = Array(repeating: Slot.raw, count: literals.count - 1)
        guard !raw.isEmpty, let inString = Self.stringStates(of: literals) else {
            slots = raw
            return
        }
        // A placeholder glued to a token (`[2{id}]` reads as `[20]`) is no JSON value of its own:
        // such a template is taken as it is written.
        let shaped = inString.map { $0 ? Slot.inString : .value }
        let samples: [JSONValue] = [.string("\"\\\u{01}"), .number("1"), .null]
        let holds = samples.allSatisfy { JSONValue.parse(Self.fill(literals, shaped, with: $0)) != nil }
        slots = holds ? shaped : raw
    }

    /// The template has at least one placeholder.
    package var hasPlaceholder: Bool { !slots.isEmpty }

    /// The template parses as JSON once its placeholders are filled.
    package var isJSONShaped: Bool { slots.first.map { $0 != .raw } ?? false }

    /// The frame with every placeholder replaced by `value`: `.string`, `.number` (its digits) or
    /// `.null` (no value: empty text, or JSON's `null` where a whole value stands).
    package func filled(with value: JSONValue) -> String {
        Self.fill(literals, slots, with: value)
    }

    private static func fill(_ literals: [String], _ slots: [Slot], with value: JSONValue) -> String {
        var output = literals[0]
        for (slot, literal) in zip(slots, literals.dropFirst()) {
            switch (slot, value) {
            case (.value, _):
                value.append(to: &output)
            case (.inString, .string(let text)), (.inString, .number(let text)):
                output += JSONText.escaped(text)
            case (.raw, .string(let text)), (.raw, .number(let text)):
                output += text
            default:
                break  // no value: nothing where text stands
            }
            output += literal
        }
        return output
    }

    /// The value a frame of this template's form carries, with one placeholder: the text between
    /// the literals around it, decoded as the slot was written (a JSON string's content unescaped,
    /// a JSON value read: a string's content or a number's digits). `nil` when the frame does not
    /// have the template's form, or the template does not have exactly one placeholder; an empty
    /// value (`null` as a JSON value) only with `allowsEmpty`.
    package func value(in frame: UnsafeRawBufferPointer, allowsEmpty: Bool = false) -> String? {
        guard slots.count == 1 else { return nil }
        let prefix = literals[0].utf8, suffix = literals[1].utf8
        guard frame.count >= prefix.count + suffix.count + (allowsEmpty ? 0 : 1),
            frame.prefix(prefix.count).elementsEqual(prefix),
            frame.suffix(suffix.count).elementsEqual(suffix)
        else { return nil }
        let middle = UnsafeRawBufferPointer(rebasing: frame[prefix.count..<(frame.count - suffix.count)])
        switch slots[0] {
        case .raw:
            return String(validating: middle, as: UTF8.self)
        case .inString:
            // A quote or a backslash left bare would have ended or broken the string.
            let quoted = [UInt8(ascii: "\"")] + Array(middle) + [UInt8(ascii: "\"")]
            let text = quoted.withUnsafeBufferPointer { JSONValue.parse($0) }?.string
            return allowsEmpty || text?.isEmpty == false ? text : nil
        case .value:
            switch Array(middle).withUnsafeBufferPointer({ JSONValue.parse($0) }) {
            case .string(let text)?, .number(let text)?: return allowsEmpty || !text.isEmpty ? text : nil
            case .null? where allowsEmpty: return ""
            default: return nil
            }
        }
    }

    /// For each placeholder, whether it lies inside a string literal; `nil` when the template,
    /// with each placeholder replaced by `0`, is not one JSON object, array or string. (A bare
    /// `{id}` reads as the number 0, but means the id as it is: it keeps the raw text.)
    private static func stringStates(of literals: [String]) -> [Bool]? {
        switch JSONValue.parse(literals.joined(separator: "0")) {
        case .object?, .array?, .string?: break
        default: return nil
        }
        var states: [Bool] = []
        var isInString = false
        var isEscaped = false
        for (index, literal) in literals.enumerated() {
            if index > 0 { states.append(isInString) }  // the `0` between, no quote nor backslash
            for byte in literal.utf8 {
                if isEscaped {
                    isEscaped = false
                } else if isInString, byte == UInt8(ascii: "\\") {
                    isEscaped = true
                } else if byte == UInt8(ascii: "\"") {
                    isInString.toggle()
                }
            }
        }
        return states
    }
}

extension JSONValue {
    /// A text that is a JSON number (a numeric id's exact digits) as a number, any other as a string.
    package static func numberOrString(_ text: String) -> JSONValue {
        if case .number(let digits)? = parse(text), digits == text { return .number(text) }
        return .string(text)
    }
}
