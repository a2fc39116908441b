/// The ids of a `mark-read` request: decimal row ids separated by single spaces.
package enum MarkReadList {
    package struct Malformed: Error {
        package init() {}
    }

    /// `nil` unless every word is a 64-bit integer (as the CLI sends them) and there is one.
    package static func parse(_ text: String) -> [Int64]? {
        var ids: [Int64] = []
        for word in text.utf8.split(separator: UInt8(ascii: " ")) {
            guard word.count <= 20, let id = Int64(Substring(decoding: word, as: UTF8.self)) else { return nil }
            ids.append(id)
        }
        return ids.isEmpty ? nil : ids
    }
}
