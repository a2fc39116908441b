// SPDX-License-Identifier: Apache-2.0

/// Validates a JSON text (RFC 8259) that must be an object and picks out the top-level members
/// it is asked for, in one pass and without building the document.
///
/// This replaces `JSONDecoder` on the push path, where decoding every payload into a dictionary
/// was most of the event loop's work: nothing but the wanted strings and numbers is materialised.
/// Nesting deeper than `maximumDepth` makes the text invalid, as it does for `JSONDecoder`.
package struct JSONObjectScanner: JSONByteReader {
    /// A top-level member's value, reduced to what the push decoder takes.
    package enum Scalar: Equatable, Sendable {
        case string(String)
        /// A number, as its JSON text.
        case number(String)
        /// An array of strings only (`[]` included), at most `maximumStrings` of them kept.
        case strings([String])
        case null
        /// Present with another value: a boolean, an object, or an array holding anything but
        /// strings.
        case other
    }

    package static let maximumDepth = 512
    /// Strings kept of an array member; the rest are validated and dropped.
    package static let maximumStrings = 256

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The values of `keys` (UTF-8) at the top level of the object in `bytes`, by position in
    /// `keys`; `nil` for a key that is absent, `.strings` for an array of strings, `.other` for one
    /// that holds a boolean, an object or any other array.
    /// When a key occurs twice the last one wins.
    ///
    /// - Returns: `nil` when `bytes` is not exactly one JSON object.
    package static func scalars(of keys: [[UInt8]], in bytes: UnsafeBufferPointer<UInt8>) -> [Scalar?]? {
        var scanner = JSONObjectScanner(bytes: bytes)
        var found = [Scalar?](repeating: nil, count: keys.count)
        scanner.skipWhitespace()
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        scanner.skipWhitespace()
        if !scanner.consume(UInt8(ascii: "}")) {
            repeat {
                scanner.skipWhitespace()
                guard let key = scanner.scanString() else { return nil }
                let wanted = keys.firstIndex { key.matches($0, in: bytes) }
                scanner.skipWhitespace()
                guard scanner.consume(UInt8(ascii: ":")) else { return nil }
                scanner.skipWhitespace()
                if let wanted {
                    guard let value = scanner.scanMemberValue() else { return nil }
                    found[wanted] = value
                } else {
                    guard scanner.skipValue(depth: 1) else { return nil }
                }
                scanner.skipWhitespace()
            } while scanner.consume(UInt8(ascii: ","))
            guard scanner.consume(UInt8(ascii: "}")) else { return nil }
        }
        scanner.skipWhitespace()
        return scanner.index == bytes.count ? found : nil
    }

    // MARK: Values

    /// A wanted member's value: strings and numbers kept, anything else validated and dropped.
    /// The outer `nil` means invalid JSON.
    private mutating func scanMemberValue() -> Scalar?? {
        switch peek() ?? 0 {
        case UInt8(ascii: "\""):
            guard let string = scanString() else { return nil }
            return .some(.string(string.decoded(from: bytes)))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            guard skipNumber() else { return nil }
            return .some(.number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)))
        case UInt8(ascii: "["):
            let start = index
            if let strings = scanStringArray() { return .some(.strings(strings)) }
            index = start
            return skipValue(depth: 1) ? .some(.other) : nil
        case UInt8(ascii: "n"):
            return consume(literal: "null") ? .some(.null) : nil
        default:
            return skipValue(depth: 1) ? .some(.other) : nil
        }
    }

    /// `[` string (`,` string)* `]`; `nil` (the index left anywhere) when an element is not a string.
    private mutating func scanStringArray() -> [String]? {
        index += 1
        skipWhitespace()
        var strings: [String] = []
        if consume(UInt8(ascii: "]")) { return strings }
        repeat {
            skipWhitespace()
            guard let span = scanString() else { return nil }
            if strings.count < Self.maximumStrings { strings.append(span.decoded(from: bytes)) }
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? strings : nil
    }

    /// Skips one value of any kind; `false` when it is not valid JSON.
    private mutating func skipValue(depth: Int) -> Bool {
        switch peek() ?? 0 {
        case UInt8(ascii: "\""):
            return scanString() != nil
        case UInt8(ascii: "{"):
            return skipContainer(closer: UInt8(ascii: "}"), isObject: true, depth: depth)
        case UInt8(ascii: "["):
            return skipContainer(closer: UInt8(ascii: "]"), isObject: false, depth: depth)
        case UInt8(ascii: "t"):
            return consume(literal: "true")
        case UInt8(ascii: "f"):
            return consume(literal: "false")
        case UInt8(ascii: "n"):
            return consume(literal: "null")
        default:
            return skipNumber()
        }
    }

    private mutating func skipContainer(closer: UInt8, isObject: Bool, depth: Int) -> Bool {
        guard depth < Self.maximumDepth else { return false }
        index += 1
        skipWhitespace()
        if consume(closer) { return true }
        repeat {
            skipWhitespace()
            if isObject {
                guard scanString() != nil else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
            }
            guard skipValue(depth: depth + 1) else { return false }
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        return consume(closer)
    }
}
