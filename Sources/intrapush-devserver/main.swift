import ArgumentParser
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
        subcommands: [Serve.self, Push.self, Burst.self, Stats.self, Control.self],
        defaultSubcommand: Serve.self
    )
}

extension DevServerCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve WebSocket clients and the HTTP API.")

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
        @Option(help: "Check that every acknowledged message id is already in this SQLite database.")
        var verifyDatabase: String?

        func validate() throws {
            guard ServerAddress(parsing: listen) != nil else {
                throw ValidationError("--listen must be HOST:PORT with a port from 0 to 65535 (was \(listen)).")
            }
            guard (token == nil) != (tokenFile == nil) else {
                throw ValidationError("Give the accepted token with exactly one of --token or --token-file.")
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
                verifyDatabasePath: verifyDatabase
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
        @Option(help: "The org to push to (default: the server's org).")
        var org: String?
        @Argument(help: "The push, usually a JSON object such as {\"id\":\"1\",\"title\":\"Hello\"}.")
        var body: String

        func run() async throws {
            print(try await server.client.push(body, org: org))
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
            abstract: "Make the server misbehave: close?code=1001, drop, silence?on=1|0, reject?status=401|403|0.")

        @OptionGroup var server: ServerOption
        @Argument(help: "The control request, for example close?code=1001.")
        var request: String

        func run() async throws {
            print(try await server.client.control(request))
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
