/// A request on the control socket: the header line `VERB ARGUMENT LENGTH\n`, then LENGTH bytes
/// of body (README "How the CLI reaches the daemon"). The CLI writes it, the daemon reads it: both
/// through this one definition.
package enum ControlRequestHeader {
    /// The longest header line the daemon reads before it refuses the request.
    package static let longest = 256

    /// The whole request as the CLI sends it. `argument` is one word, `-` when there is none.
    package static func encode(verb: String, argument: String = "-", body: String) -> [UInt8] {
        var request = Array("\(verb) \(argument) \(body.utf8.count)\n".utf8)
        request.append(contentsOf: body.utf8)
        return request
    }

    /// Three words separated by single spaces, the last a decimal length of at most 12 digits;
    /// `nil` for anything else. No arithmetic on the length can trap.
    package static func parse(_ line: String) -> (verb: String, argument: String, length: Int)? {
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 3, !words[2].isEmpty, words[2].utf8.count <= 12,
            words[2].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let length = Int(words[2])
        else { return nil }
        return (String(words[0]), String(words[1]), length)
    }

    /// A `request`'s argument: its timeout in whole milliseconds, or `-` for the configured
    /// `request_timeout`.
    package static func timeoutArgument(_ timeout: Duration?) -> String {
        timeout.map { String($0.milliseconds) } ?? "-"
    }

    /// A `request`'s timeout: whole milliseconds from 1 to `longest`, or `-` for the configured
    /// `request_timeout` (`.some(nil)`); `nil` for anything else. Digits only.
    package static func requestTimeout(_ argument: String, longestMilliseconds longest: Int64) -> Duration?? {
        if argument == "-" { return .some(nil) }
        guard !argument.isEmpty, argument.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            argument.utf8.count <= String(longest).utf8.count, let milliseconds = Int64(argument),
            (1...longest).contains(milliseconds)
        else { return nil }
        return .some(.milliseconds(milliseconds))
    }
}
