// SPDX-License-Identifier: Apache-2.0

/// Why an `on_notification` command line cannot be run.
///
/// `message` names neither the key nor the value, so that the configuration loader can report it
/// as it reports every other setting (`reader.reject(.onNotification, error.message)` adds the
/// key, the file and line, and the value); `description` reads on its own, prefixed with
/// `on_notification: `.
package struct HookCommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Reason: Equatable {
        case empty
        case emptyProgram
        case unterminatedQuote(Character)
        case trailingBackslash
        case nulCharacter
        case shellOperator(String)
        case newline
        case expansion(String)
        case tilde
        case comment
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// What is wrong and how to fix it, without the key.
    package var message: String {
        switch reason {
        case .empty:
            return "the command line is empty: name a program to run, or remove the setting"
        case .emptyProgram:
            return "the program name is empty"
        case .unterminatedQuote(let quote):
            return "a \(quote) quote is not closed"
        case .trailingBackslash:
            return "ends with a backslash that escapes nothing"
        case .nulCharacter:
            return "contains a NUL character"
        case .shellOperator(let text):
            return "\(Self.quoted(text)) is a shell operator, but no shell runs this command: quote it to pass it"
                + " as an argument, or put the pipeline in a script and name the script here"
        case .expansion(let text):
            return "\(Self.quoted(text)) would be expanded by a shell, but no shell runs this command: the"
                + " notification reaches it as JSON on stdin and as INTRAPUSH_ID, INTRAPUSH_MESSAGE_ID,"
                + " INTRAPUSH_TITLE and INTRAPUSH_BODY; quote it with ' to pass it literally"
        case .newline:
            return "a newline would separate commands in a shell, but no shell runs this command: put the"
                + " commands in a script and name the script here"
        case .tilde:
            return "~ is not expanded (no shell runs this command): write the full path"
        case .comment:
            return "# would start a comment in a shell: quote it to pass it as an argument"
        }
    }

    package var description: String { "on_notification: " + message }

    private static func quoted(_ text: String) -> String {
        text.contains("'") ? "\"\(text)\"" : "'\(text)'"
    }
}
