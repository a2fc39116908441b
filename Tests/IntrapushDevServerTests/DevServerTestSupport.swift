// SPDX-License-Identifier: Apache-2.0

import IntrapushDevServer
import Logging

/// Runs `body` against a fresh in-process server on an ephemeral port, then shuts it down.
func withDevServer(
    _ configure: (inout DevServerConfiguration) -> Void = { _ in },
    _ body: (DevServer, DevServerClient) async throws -> Void
) async throws {
    var configuration = DevServerConfiguration(
        listenAddress: ServerAddress(host: "127.0.0.1", port: 0), token: testToken)
    configure(&configuration)
    let server = try await DevServer.bind(
        configuration: configuration, logger: Logger(label: "devserver-test") { _ in SwiftLogNoOpLogHandler() })
    do {
        try await body(server, DevServerClient(server.localAddress))
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

let testToken = "t/k+n="

/// The connect path for `org` with the right token, segments percent-encoded as the daemon does.
func connectPath(org: String = "acme", token: String = testToken) -> String {
    "/connect/linux/\(percentEncoded(org))/\(percentEncoded(token))"
}

private func percentEncoded(_ text: String) -> String {
    text.utf8.map { byte in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            String(UnicodeScalar(byte))
        default:
            "%" + String(byte, radix: 16, uppercase: true)
        }
    }.joined()
}

/// The headers of a WebSocket upgrade request, for sending one by hand.
let upgradeHeaders = [
    "Upgrade": "websocket", "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13",
]
