// SPDX-License-Identifier: Apache-2.0

/// Random JSON objects for differential tests: nested values, escapes, non-ASCII text, and the
/// members the push decoder looks for; `damaged` breaks them in small ways.
enum JSONGenerator {
    static func object(depth: Int, using random: inout some RandomNumberGenerator) -> String {
        // Distinct names: which of two duplicates wins is not what these tests compare.
        let title = Bool.random(using: &random) ? "title" : "t\\u0069tle"
        let keys = ["id", title, "body", "x", "nested", "é"].shuffled(using: &random)
        let count = Int.random(in: 0...5, using: &random)
        let members = keys.prefix(count).map { key in
            "\"\(key)\"" + space(&random) + ":" + space(&random)
                + value(depth: depth + 1, using: &random)
        }
        return space(&random) + "{" + members.joined(separator: "," + space(&random)) + "}" + space(&random)
    }

    static func value(depth: Int, using random: inout some RandomNumberGenerator) -> String {
        let choice = Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random)
        switch choice {
        case 0: return string(using: &random)
        case 1: return ["0", "-7", "42", "3.25", "1e3", "-0.5E-2", "18446744073709551615"].randomElement(using: &random)!
        case 2: return ["true", "false", "null"].randomElement(using: &random)!
        case 3, 4: return string(using: &random)
        case 5: return object(depth: depth, using: &random)
        default:
            let count = Int.random(in: 0...3, using: &random)
            return "[" + (0..<count).map { _ in value(depth: depth + 1, using: &random) }.joined(separator: ",") + "]"
        }
    }

    static func string(using random: inout some RandomNumberGenerator) -> String {
        let pieces = ["a", "Zz", " ", "中文", "😀", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\/", "$(x)", "é"]
        let count = Int.random(in: 0...4, using: &random)
        return "\"" + (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined() + "\""
    }

    /// Cuts, duplicates or replaces one character.
    static func damaged(_ text: String, using random: inout some RandomNumberGenerator) -> String {
        var characters = Array(text)
        guard !characters.isEmpty else { return "{" }
        let position = Int.random(in: 0..<characters.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: characters.remove(at: position)
        case 1: characters.insert(characters[position], at: position)
        default: characters[position] = [",", ":", "\"", "{", "]", "1", "\\", "\t"].randomElement(using: &random)!
        }
        return String(characters)
    }

    private static func space(_ random: inout some RandomNumberGenerator) -> String {
        ["", "", " ", "\n\t "].randomElement(using: &random)!
    }
}

/// SplitMix64: deterministic, so a failing case can be reproduced.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
