// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import IntrapushQuery
import IntrapushStore
import IntrapushSupport

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Queue a message for the server; print its id once it is stored.",
        discussion: """
            The message is one JSON object. Its id is its "id" member (upstream_id_field) when it \
            has one, else a new UUID that is added. It is stored before its id is printed, and the \
            daemon sends it, in queue order, as soon as it is connected — after a reconnect, a \
            restart or a reboot if need be — until the server acknowledges it or outbox_ttl passes.

            Exit statuses: 65 not a JSON object (or larger than max_message_size), 69 intrapushd \
            is not running and this user cannot queue without it, 75 a message with this id still \
            waits, 77 permission denied.

            Examples:
              intrapush send '{"type":"ping"}'
              echo '{"id":"job-42","status":"done"}' | intrapush send -
            """
    )

    @OptionGroup var location: DatabaseOptions

    @Argument(help: ArgumentHelp("The message, or - to read it from standard input.", valueName: "json"))
    var message: String

    func run() throws {
        let text = try MessageArgument.read(message)
        let queued = try location.writer().queue(text)
        if queued.route == .direct { MessageArgument.noteQueuedWithoutDaemon() }
        StandardOutput().write(queued.messageID + "\n")
    }
}

/// The message of `send` and `request`: the argument, or standard input for `-`.
enum MessageArgument {
    static func read(_ argument: String) throws -> String {
        guard argument == "-" else { return argument }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure(.dataError, "standard input is not UTF-8 text; give one JSON object")
        }
        return text
    }

    static func noteQueuedWithoutDaemon() {
        StandardError.writeLine("intrapush: intrapushd is not running; the message is stored and goes out once it runs")
    }
}

extension DatabaseOptions {
    /// Where `send`, `request` and `mark-read` write; configuration warnings go to stderr.
    func writer() throws(CommandFailure) -> WriteAccess {
        let (writer, warnings) = try DatabaseLocator(environment: ProcessEnvironment.current)
            .writer(database: database, configurationFile: config)
        for warning in warnings { StandardError.writeLine("intrapush: warning: \(warning)") }
        return writer
    }
}
