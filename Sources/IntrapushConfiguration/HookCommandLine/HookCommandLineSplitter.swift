// SPDX-License-Identifier: Apache-2.0

/// Splits a command line into words by the quoting rules of POSIX `sh` (XCU 2.2), expanding
/// nothing and refusing what only a shell could act on; see `HookCommandLine`.
///
/// Works on Unicode scalars, as `sh` works on bytes, so that CR LF is two characters.
struct HookCommandLineSplitter {
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var words: [String] = []
    private var word = String.UnicodeScalarView()
    /// Whether a word has begun: quotes begin one even when they hold nothing (`""`).
    private var isInWord = false

    private static let operatorCharacters: Set<Unicode.Scalar> = ["|", "&", ";", "<", ">", "(", ")"]
    private static let specialParameters: Set<Unicode.Scalar> = ["@", "*", "#", "?", "-", "$", "!"]

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    mutating func split() throws(HookCommandLineError) -> [String] {
        guard !scalars.contains("\0") else { throw HookCommandLineError(.nulCharacter) }
        while let scalar = next() {
            switch scalar {
            case " ", "\t":
                endWord()
            case "\n":
                throw HookCommandLineError(.newline)
            case "\\":
                guard let escaped = next() else { throw HookCommandLineError(.trailingBackslash) }
                // Backslash-newline is a line continuation: it vanishes.
                if escaped != "\n" { append(escaped) }
            case "'":
                isInWord = true
                try readSingleQuoted()
            case "\"":
                isInWord = true
                try readDoubleQuoted()
            case "`":
                throw HookCommandLineError(.expansion("`"))
            case "$":
                try checkDollar(insideDoubleQuotes: false)
                append(scalar)
            case "#" where !isInWord:
                throw HookCommandLineError(.comment)
            case "~" where !isInWord:
                throw HookCommandLineError(.tilde)
            case _ where Self.operatorCharacters.contains(scalar):
                var text = String(scalar)
                if let following = peek(), Self.operatorCharacters.contains(following), following != "(" {
                    text.unicodeScalars.append(following)
                }
                throw HookCommandLineError(.shellOperator(text))
            default:
                append(scalar)
            }
        }
        endWord()
        return words
    }

    private mutating func readSingleQuoted() throws(HookCommandLineError) {
        while let scalar = next() {
            if scalar == "'" { return }
            word.append(scalar)
        }
        throw HookCommandLineError(.unterminatedQuote("'"))
    }

    private mutating func readDoubleQuoted() throws(HookCommandLineError) {
        while let scalar = next() {
            switch scalar {
            case "\"":
                return
            case "\\":
                guard let escaped = next() else { break }
                switch escaped {
                case "\n": continue
                case "$", "`", "\"", "\\": word.append(escaped)
                default:
                    // Inside double quotes any other backslash stays, as in `sh`.
                    word.append("\\")
                    word.append(escaped)
                }
            case "`":
                throw HookCommandLineError(.expansion("`"))
            case "$":
                try checkDollar(insideDoubleQuotes: true)
                word.append(scalar)
            default:
                word.append(scalar)
            }
        }
        throw HookCommandLineError(.unterminatedQuote("\""))
    }

    /// Refuses a `$` that a shell would expand; a lone `$` (`price$`, `$ `) is literal in `sh` too.
    private func checkDollar(insideDoubleQuotes: Bool) throws(HookCommandLineError) {
        guard let following = peek() else { return }
        if following == "_" || following.properties.isAlphabetic && following.isASCII {
            var name = "$"
            var index = position
            while index < scalars.count, scalars[index] == "_" || scalars[index].isASCII
                && (scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])) {
                name.unicodeScalars.append(scalars[index])
                index += 1
            }
            throw HookCommandLineError(.expansion(name))
        }
        let expands = ("0"..."9").contains(following) || Self.specialParameters.contains(following)
            || following == "{" || following == "("
            // bash's $'…' and $"…" quoting.
            || !insideDoubleQuotes && (following == "'" || following == "\"")
        if expands { throw HookCommandLineError(.expansion("$" + String(following))) }
    }

    private mutating func next() -> Unicode.Scalar? {
        guard position < scalars.count else { return nil }
        defer { position += 1 }
        return scalars[position]
    }

    private func peek() -> Unicode.Scalar? {
        position < scalars.count ? scalars[position] : nil
    }

    private mutating func append(_ scalar: Unicode.Scalar) {
        isInWord = true
        word.append(scalar)
    }

    private mutating func endWord() {
        guard isInWord else { return }
        words.append(String(word))
        word = String.UnicodeScalarView()
        isInWord = false
    }
}
