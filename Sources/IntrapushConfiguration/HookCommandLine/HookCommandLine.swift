// SPDX-License-Identifier: Apache-2.0

/// The `on_notification` command line, split into arguments the way POSIX `sh` splits words, but
/// run without a shell: nothing in it is ever expanded or interpreted.
///
/// Spaces and tabs separate words; single quotes keep everything literally; double quotes keep
/// everything but `\"`, `\\`, `\$`, `` \` `` and backslash-newline; outside quotes a backslash
/// escapes the next character. `""` is an empty argument.
///
/// What a user could only mean for a shell is refused rather than passed on silently: unquoted
/// `|`, `&`, `;`, `<`, `>`, `(`, `)`, a newline and `#` starting a word; `` ` `` and `$` followed by
/// a name, a digit, `{`, `(` or a special parameter, outside single quotes; `~` starting a word.
/// Glob characters (`*`, `?`, `[`) are plain characters: no file names are matched.
///
/// The first argument is the program; a name without a slash is looked up in `PATH` when the hook
/// starts, as `execvp(3)` does.
package struct HookCommandLine: Sendable, Equatable, CustomStringConvertible {
    /// The argument vector; never empty, and the program is never empty.
    package let arguments: [String]

    /// The program to run: a path, or a name looked up in `PATH`.
    package var program: String { arguments[0] }

    /// A command line from arguments already split; `nil` when there is no program.
    package init?(arguments: [String]) {
        guard let first = arguments.first, !first.isEmpty else { return nil }
        guard !arguments.contains(where: { $0.utf8.contains(0) }) else { return nil }
        self.arguments = arguments
    }

    /// Splits `text`, or explains what is wrong with it.
    package init(parsing text: String) throws(HookCommandLineError) {
        var splitter = HookCommandLineSplitter(text)
        let words = try splitter.split()
        guard let first = words.first else { throw HookCommandLineError(.empty) }
        guard !first.isEmpty else { throw HookCommandLineError(.emptyProgram) }
        arguments = words
    }

    /// The arguments, each quoted for a shell where needed, for logs and `--check-config`.
    package var description: String {
        arguments.map(Self.quotedForDisplay).joined(separator: " ")
    }

    private static func quotedForDisplay(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./=:,+@%".unicodeScalars.contains(scalar)
        }
        if plain { return word }
        return "'" + word.replacing("'", with: #"'\''"#) + "'"
    }
}
