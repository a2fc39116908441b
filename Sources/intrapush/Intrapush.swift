// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import IntrapushQuery
import IntrapushSupport

/// `intrapush`: reads, follows and marks the notifications intrapushd stored.
@main
struct Intrapush: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intrapush",
        abstract: "Read, follow and mark the notifications that intrapushd stored; send messages to the server.",
        discussion: """
            The database is found like the daemon finds it: --database, else $INTRAPUSH_DATABASE, \
            else the database key of /etc/intrapush/intrapush.conf (or --config, $INTRAPUSH_CONFIG). \
            --database and --config may come before the command too (intrapush --database X list). \
            Reading never blocks the daemon. Administrators (root, the group intrapush-admin) read \
            the database itself; everyone else reads through intrapushd's local API \
            (/run/intrapush/io.intrapush), which shows each person what is addressed to them. send, request \
            and mark-read ask intrapushd to write; only when it is not running does an \
            administrator's write itself.

            Exit statuses: 0 success, 1 not found, 2 usage error, 65 bad data (not an intrapush \
            database, a newer schema, a message that is not a JSON object), 66 no database, 69 \
            intrapushd not running and the write impossible without it, 74 I/O error, 75 try again \
            (a message with that id waits; no reply in time; intrapushd busy with your own connections or queries), 77 permission denied, 78 configuration error.

            Shell completions: intrapush --generate-completion-script bash|zsh|fish
            """,
        version: ProductVersion.upstream,
        subcommands: [
            ListCommand.self, ShowCommand.self, CountCommand.self, FollowCommand.self,
            MarkReadCommand.self, StatusCommand.self, ExportCommand.self,
            SendCommand.self, RequestCommand.self, OutboxCommand.self,
        ]
    )

    /// ArgumentParser's own `main`, except that usage errors exit 2 (as documented in intrapush(1))
    /// instead of 64, our failures print one sentence prefixed with the program's name, and
    /// `--database`/`--config` may come before the command.
    static func main() {
        do {
            var command = try parseAsRoot(LeadingOptions.moved(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let failure as CommandFailure {
            StandardError.writeLine("intrapush: \(failure.message)")
            Glibc.exit(failure.exitStatus)
        } catch {
            if exitCode(for: error) == .validationFailure {
                StandardError.writeLine(fullMessage(for: error))
                Glibc.exit(CommandFailure.Kind.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}
