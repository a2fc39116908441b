// SPDX-License-Identifier: Apache-2.0

/// The "did you mean …?" of an unknown key or variable.
enum KeySuggestion {
    /// The candidate closest to `word` by edit distance, when close enough to be a likely typo:
    /// at most a third of the word's length, and never more than 3 edits.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let lowered = Array(word.lowercased().replacing("-", with: "_"))
        let limit = min(3, max(1, lowered.count / 3))
        let scored = candidates.map { ($0, distance(lowered, Array($0))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
