// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushConfiguration
import IntrapushQuery
import IntrapushStore
import IntrapushSupport

struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send a request to the server and print its reply.",
        discussion: """
            Queued like send; then waits for the first frame from the server that is a JSON object \
            whose "id" member (reply_to_field) is the request's id, and prints it. The reply is \
            stored with the request (intrapush outbox --json shows it), not as a notification.

            Exit statuses: 0 the reply was printed, 75 no reply within the timeout (the request \
            expires and is not sent again), and those of send.

            Examples:
              intrapush request '{"op":"whoami"}'
              intrapush request --timeout 5s '{"id":"q-1","op":"time"}'
            """
    )

    @OptionGroup var location: DatabaseOptions

    @Option(help: ArgumentHelp("How long to wait for the reply (default: request_timeout, 30s).", valueName: "duration"))
    var timeout: String?

    @Argument(help: ArgumentHelp("The request, or - to read it from standard input.", valueName: "json"))
    var message: String

    func run() throws {
        let timeout = try self.timeout.map { text in
            guard let duration = DurationParser.parse(text), duration > .zero else {
                throw ValidationError("--timeout: cannot read \"\(text)\"; give seconds or a duration like 500ms, 10s, 2min")
            }
            return duration
        }
        let text = try MessageArgument.read(message)
        let writer = try location.writer()
        let (queued, reply) = try writer.request(text, timeout: timeout)
        if let reply {
            StandardOutput().write(reply + "\n")
            return
        }
        // Written directly while no daemon ran: wait for the row as the daemon fills it in.
        MessageArgument.noteQueuedWithoutDaemon()
        let waited = timeout ?? writer.configuration.requestTimeout
        switch try OutboxRowWatcher(databasePath: writer.databasePath).wait(forRow: queued.rowID, timeout: waited) {
        case .replied(let reply):
            StandardOutput().write(reply + "\n")
        case .expired:
            throw CommandFailure(
                .temporaryFailure, "no reply to request \(queued.messageID) within \(DurationParser.format(waited)); it expired and is not sent again")
        case .interrupted:
            throw CommandFailure(
                .temporaryFailure, "interrupted; request \(queued.messageID) stays queued until it expires, and its reply is kept (intrapush outbox --json)")
        }
    }
}
