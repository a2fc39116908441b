// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushSupport
import IntrapushDevServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reference push server for the demo and the integration tests, and a client for its API.
struct DevServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intrapush-devserver",
        abstract: "A reference push server for intrapush demos and tests (not for production).",
        version: ProductVersion.upstream,
        subcommands: [Serve.self, Push.self, Burst.self, Stats.self, Control.self, UpstreamReply.self, BenchClientCommand.self],
        defaultSubcommand: Serve.self
    )
}

extension DevServerCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve WebSocket clients and the HTTP API.",
            discussion: """
                HTTP API:
                  GET  /connect/{client}/{org}/{token}  WebSocket upgrade (401: bad token)
                  GET  /connect/{client}/{org}          the same, the token in Authorization: Bearer
                  POST /push[?org=O]                    queue the body as one push
                  POST /push/burst?count=N&size=S&prefix=P[&org=O]
                       queue N generated pushes {"id":"<P><seq>",...} of about S
                       bytes; the answer's queued_us is when all were queued,
                       before the first was sent
                  POST /push/steady?count=N&rate=R&size=S&prefix=P[&org=O]
                       send one push every 1/R s, each flushed on its own;
                       replaces a run in progress and resets ack_latency_us
                  GET  /stats                           counters as JSON (below)
                  POST /control/close?code=C[&reason=R][&now=1] | drop | silence?on=1|0
                       close stops sending and waits for what was sent to be
                       acknowledged (at most 5 s) unless now=1
                  POST /control/reject?status=401|403|429|503|0[&retry_after=N | &retry_after_date=N]
                  POST /control/reset-latency           empties ack_latency_us

                Times in /stats are microseconds of the monotonic clock.
                started_monotonic_us: the server's start on CLOCK_MONOTONIC (as
                Python's time.monotonic_ns() // 1000); the other *_us count from
                it. last_ack_us: when the latest acknowledgement was read.
                connection_times_us: when each WebSocket was opened (the latest
                10,000). ack_latency_us {count, p50, p90, p99, max}: per push of
                the latest steady run, from right before its flush to reading its
                acknowledgement; nearest-rank percentiles.
                """)

        @Option(help: "Address to listen on, HOST:PORT; port 0 picks a free port.")
        var listen = "127.0.0.1:8080"
        @Option(help: "The token clients must present.")
        var token: String?
        @Option(help: "A file whose first line is the token (keeps it out of the process arguments).")
        var tokenFile: String?
        @Option(help: "The org of POST /push when the request names none.")
        var org = "acme"
        @Option(help: "The text frame clients send as a heartbeat.")
        var heartbeatText = "KA"
        @Flag(help: "Send each heartbeat back to the client.")
        var echoHeartbeats = false
        @Option(help: "The clients' ack text; {id} stands for the message id.")
        var ackText = "received message"
        @Option(help: "Check that every acknowledged message id is already in this SQLite database (and every message from the client in its outbox).")
        var verifyDatabase: String?
        @Option(help: "The acknowledgement of a message from the client; {id} stands for its id; empty: none.")
        var upstreamAckText = "received message {id}"
        @Flag(help: "Answer every message from the client with {\"id\":…,\"echo\":…}.")
        var echoUpstream = false
        @Option(help: "On SIGTERM, close connections with 1012 (Service Restart) and reason retry-after=N instead of 1001.")
        var shutdownRetryAfter: Int?
        @Option(help: "The clients' hello_text ({token} stands for the token): the first frame of every connection; nothing is delivered before it, and another first frame closes with 1008.")
        var helloText: String?
        @Option(help: "The member of a push that is its id (the clients' id_field).")
        var idField = "id"
        @Option(help: "The member of a client's message that is its id (the clients' upstream_id_field).")
        var upstreamIdField = "id"
        @Option(help: "The member of a reply that names its request (the clients' reply_to_field; default: --upstream-id-field).")
        var replyToField: String?
        @Option(help: "Drop a client from which nothing (no frame, no ping) came for this many seconds; 0: never.")
        var idleTimeout = 30.0
        @Option(help: "With --hello-text, close (1008) a connection whose hello has not come within this many seconds.")
        var helloTimeout = 10.0

        func validate() throws {
            guard ServerAddress(parsing: listen) != nil else {
                throw ValidationError("--listen must be HOST:PORT with a port from 0 to 65535 (was \(listen)).")
            }
            guard (token == nil) != (tokenFile == nil) else {
                throw ValidationError("Give the accepted token with exactly one of --token or --token-file.")
            }
            guard idleTimeout >= 0, idleTimeout <= 86_400 else {
                throw ValidationError("--idle-timeout must be a number of seconds from 0 (never) to 86400.")
            }
            guard helloTimeout > 0, helloTimeout <= 3600 else {
                throw ValidationError("--hello-timeout must be a number of seconds above 0, at most 3600.")
            }
        }

        func run() async throws {
            let configuration = DevServerConfiguration(
                listenAddress: ServerAddress(parsing: listen)!,
                token: try token ?? DevServerConfiguration.readToken(fromFile: tokenFile!),
                defaultOrg: org,
                heartbeatText: heartbeatText,
                echoesHeartbeats: echoHeartbeats,
                acknowledgementTemplate: ackText,
                verifyDatabasePath: verifyDatabase,
                upstreamAcknowledgementTemplate: upstreamAckText,
                echoesUpstream: echoUpstream,
                shutdownRetryAfter: shutdownRetryAfter,
                helloText: helloText,
                idField: idField,
                upstreamIDField: upstreamIdField,
                replyToField: replyToField,
                idleTimeout: idleTimeout > 0 ? .milliseconds(Int64((idleTimeout * 1000).rounded())) : nil,
                helloTimeout: .milliseconds(Int64((helloTimeout * 1000).rounded()))
            )
            let server = try await DevServer.bind(configuration: configuration)
            print("listening on \(server.localAddress)")
            // Tests read this line through a pipe, where stdout is block-buffered.
            fflush(nil)
            try await server.runUntilTerminated()
        }
    }

    struct ServerOption: ParsableArguments {
        @Option(help: "The dev server's HTTP address, HOST:PORT.")
        var server = "127.0.0.1:8080"

        func validate() throws {
            guard ServerAddress(parsing: server) != nil else {
                throw ValidationError("--server must be HOST:PORT (was \(server)).")
            }
        }

        var client: DevServerClient { DevServerClient(ServerAddress(parsing: server)!) }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue one push and print its sequence number.")

        @OptionGroup var server: ServerOption
        @Option(help: "The org to push to (default: the server's org); every host of it gets the push.")
        var org: String?
        @Option(help: "The one host of the org to push to (its Intrapush-Host, as intrapush status shows it).")
        var host: String?
        @Argument(help: "The push, usually a JSON object such as {\"id\":\"1\",\"title\":\"Hello\"}.")
        var body: String

        func run() async throws {
            print(try await server.client.push(body, org: org, host: host))
        }
    }

    struct UpstreamReply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upstream-reply",
            abstract: "Answer a client's request (now, or when it arrives) with {\"id\":ID,\"reply\":BODY}.")

        @OptionGroup var server: ServerOption
        @Option(help: "The id of the request to answer.")
        var to: String
        @Argument(help: "The reply, a JSON value such as {\"answer\":42}.")
        var body: String

        func run() async throws {
            print(try await server.client.upstreamControl("reply?to=\(DevServerClient.percentEncoded(to))", body: body))
        }
    }

    struct Burst: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue generated pushes with ids PREFIX<seq>.")

        @OptionGroup var server: ServerOption
        @Option(help: "The org to push to (default: the server's org).")
        var org: String?
        @Option(help: "How many pushes.")
        var count = 1000
        @Option(help: "About how many bytes each push has.")
        var size = 300
        @Option(help: "The prefix of the generated message ids.")
        var prefix = "b-"

        func run() async throws {
            let range = try await server.client.burst(count: count, size: size, prefix: prefix, org: org)
            print("queued \(range.count) pushes, seq \(range.lowerBound)..<\(range.upperBound)")
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the server's statistics as JSON.")

        @OptionGroup var server: ServerOption

        func run() async throws {
            print(try await server.client.send(.GET, "/stats").body)
        }
    }

    struct Control: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the server misbehave: close?code=1001, drop, silence?on=1|0, reject?status=401|403|429|503|0[&retry_after=N].")

        @OptionGroup var server: ServerOption
        @Argument(help: "The control request, for example close?code=1001.")
        var request: String

        func run() async throws {
            print(try await server.client.control(request))
        }
    }
}

extension DevServerCommand {
    struct BenchClientCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-client",
            abstract: "Connect as a client that acknowledges every push at once and stores nothing.",
            discussion: "Measures the server alone. Runs until the server closes the connection, or SIGTERM/SIGINT.")

        @OptionGroup var server: ServerOption
        @Option(help: "The org to connect for.")
        var org = "acme"
        @Option(help: "The client segment of the connect path.")
        var client = "bench"
        @Option(help: "The token to present.")
        var token: String?
        @Option(help: "A file whose first line is the token (keeps it out of the process arguments).")
        var tokenFile: String?
        @Option(help: "The text of every acknowledgement.")
        var ackText = "received message"

        func validate() throws {
            guard (token == nil) != (tokenFile == nil) else {
                throw ValidationError("Give the token with exactly one of --token or --token-file.")
            }
        }

        func run() async throws {
            let token = try token ?? DevServerConfiguration.readToken(fromFile: tokenFile!)
            let benchClient = BenchClient(
                server: ServerAddress(parsing: server.server)!,
                path: BenchClient.connectPath(client: client, org: org, token: token), acknowledgementText: ackText)
            try await benchClient.runUntilTerminated()
        }
    }
}

/// Parses and runs the command from an async function: top-level code would resolve `main()` and
/// `run()` to their synchronous overloads, which refuse or ignore async commands.
func runDevServerCommand() async {
    do {
        var command = try await DevServerCommand.asyncParseAsRoot()
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    } catch {
        DevServerCommand.exit(withError: error)
    }
}

await runDevServerCommand()
