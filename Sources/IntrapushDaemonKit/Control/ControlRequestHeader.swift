/// The control socket's request header, `VERB ARGUMENT LENGTH` (pure): what the daemon reads
/// before it keeps any byte of a body.
enum ControlRequestHeader {
    /// Three words separated by single spaces, the last a decimal length of at most 12 digits;
    /// `nil` for anything else. No arithmetic on the length can trap.
    static func parse(_ line: String) -> (verb: String, argument: String, length: Int)? {
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 3, !words[2].isEmpty, words[2].utf8.count <= 12,
            words[2].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let length = Int(words[2])
        else { return nil }
        return (String(words[0]), String(words[1]), length)
    }

    /// A `request`'s timeout: whole milliseconds from 1 to `longest`, or `-` for the configured
    /// `request_timeout` (`.some(nil)`); `nil` for anything else. Digits only.
    static func requestTimeout(_ argument: String, longestMilliseconds longest: Int64) -> Duration?? {
        if argument == "-" { return .some(nil) }
        guard !argument.isEmpty, argument.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            argument.utf8.count <= String(longest).utf8.count, let milliseconds = Int64(argument),
            (1...longest).contains(milliseconds)
        else { return nil }
        return .some(.milliseconds(milliseconds))
    }
}
