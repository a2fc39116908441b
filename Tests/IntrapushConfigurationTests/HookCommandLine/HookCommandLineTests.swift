// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushConfiguration

@Suite("on_notification command line: split like sh, expand nothing")
struct HookCommandLineTests {
    func split(_ text: String) throws -> [String] {
        try HookCommandLine(parsing: text).arguments
    }

    func reason(_ text: String) -> HookCommandLineError.Reason? {
        do {
            _ = try HookCommandLine(parsing: text)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("spaces and tabs separate words; runs of them make no empty words")
    func whitespace() throws {
        #expect(try split("notify-send  -u\tlow   hello ") == ["notify-send", "-u", "low", "hello"])
        #expect(try split("/usr/local/bin/hook") == ["/usr/local/bin/hook"])
    }

    @Test("single quotes keep everything literally, backslashes and dollars included")
    func singleQuotes() throws {
        #expect(try split(#"echo 'a  b' 'c\d' '$HOME' '`x`' '|;&' ''"#) == ["echo", "a  b", #"c\d"#, "$HOME", "`x`", "|;&", ""])
    }

    @Test("double quotes honour \\\" \\\\ \\$ \\` and keep other backslashes")
    func doubleQuotes() throws {
        #expect(try split(#"echo "a \"b\" \\ \$ \` \n""#) == ["echo", #"a "b" \ $ ` \n"#])
        #expect(try split(#"echo "it's" "a|b;c&d>e""#) == ["echo", "it's", "a|b;c&d>e"])
        #expect(try split(#"echo """#) == ["echo", ""])
    }

    @Test("outside quotes a backslash escapes the next character; backslash-newline vanishes")
    func backslashes() throws {
        #expect(try split(#"echo a\ b \| \$HOME \\ \'"#) == ["echo", "a b", "|", "$HOME", #"\"#, "'"])
        #expect(try split("echo a\\\nb") == ["echo", "ab"])
    }

    @Test("adjacent quoted and plain parts join into one word")
    func concatenation() throws {
        #expect(try split(#"say pre'mid dle'"post fix"end"#) == ["say", "premid dlepost fixend"])
    }

    @Test("globs and a lone dollar are plain characters")
    func literalCharacters() throws {
        #expect(try split("echo *.txt ? [ab] price$ $ a#b a~b") == ["echo", "*.txt", "?", "[ab]", "price$", "$", "a#b", "a~b"])
    }

    @Test("shell operators outside quotes are refused, naming the operator")
    func operatorsRefused() {
        #expect(reason("notify-send hi | logger") == .shellOperator("|"))
        #expect(reason("a && b") == .shellOperator("&&"))
        #expect(reason("a; b") == .shellOperator(";"))
        #expect(reason("a > /tmp/x") == .shellOperator(">"))
        #expect(reason("a 2>/tmp/x") == .shellOperator(">"))
        #expect(reason("a < in") == .shellOperator("<"))
        #expect(reason("a &") == .shellOperator("&"))
        #expect(reason("(a)") == .shellOperator("("))
        #expect(reason("a\nb") == .newline)
    }

    @Test("expansions a shell would perform are refused, also inside double quotes")
    func expansionsRefused() {
        #expect(reason("echo $HOME") == .expansion("$HOME"))
        #expect(reason(#"echo "$TITLE""#) == .expansion("$TITLE"))
        #expect(reason("echo ${HOME}") == .expansion("${"))
        #expect(reason("echo $(touch pwned)") == .expansion("$("))
        #expect(reason(#"echo "`touch pwned`""#) == .expansion("`"))
        #expect(reason("echo `id`") == .expansion("`"))
        #expect(reason("echo $1 ") == .expansion("$1"))
        #expect(reason("echo $@") == .expansion("$@"))
        #expect(reason("~/bin/hook") == .tilde)
        #expect(reason("hook # comment") == .comment)
    }

    @Test("unterminated quotes, a trailing backslash, NUL and emptiness are errors")
    func malformed() {
        #expect(reason("echo 'abc") == .unterminatedQuote("'"))
        #expect(reason(#"echo "abc"#) == .unterminatedQuote("\""))
        #expect(reason(#"echo "abc\"#) == .unterminatedQuote("\""))
        #expect(reason(#"echo abc\"#) == .trailingBackslash)
        #expect(reason("echo a\u{0}b") == .nulCharacter)
        #expect(reason("") == .empty)
        #expect(reason("  \t ") == .empty)
        #expect(reason(#""" arg"#) == .emptyProgram)
    }

    @Test("messages name on_notification and say what to do instead")
    func messages() {
        let error = HookCommandLineError(.shellOperator("|"))
        #expect(error.description.hasPrefix("on_notification: '|' is a shell operator"))
        #expect(error.message.contains("script"))
        #expect(!error.message.contains("on_notification"))
        #expect(HookCommandLineError(.expansion("$HOME")).message.contains("INTRAPUSH_TITLE"))
    }

    @Test("the description quotes what needs quoting and splits back to the same arguments")
    func roundTrip() throws {
        let command = try HookCommandLine(parsing: #"notify-send -a intrapush "it's a | b" '' plain"#)
        #expect(command.description == #"notify-send -a intrapush 'it'\''s a | b' '' plain"#)
        #expect(try HookCommandLine(parsing: command.description) == command)
        #expect(command.program == "notify-send")
    }

    @Test("arguments already split need a program")
    func fromArguments() {
        #expect(HookCommandLine(arguments: []) == nil)
        #expect(HookCommandLine(arguments: [""]) == nil)
        #expect(HookCommandLine(arguments: ["a\u{0}"]) == nil)
        #expect(HookCommandLine(arguments: ["/bin/true", ""])?.arguments == ["/bin/true", ""])
    }
}
