// SPDX-License-Identifier: Apache-2.0

/// Where and how to open the WebSocket: `{scheme}://{host}{path}`.
///
/// `path` carries the real token and is meant only for the HTTP request line; anything shown to
/// people uses `redactedURL`, whose token segment reads `***`.
package struct ServerEndpoint: Sendable, Equatable {
    /// `ws`, or `wss` when `tls = true`.
    package var scheme: String
    /// The name or IP address to connect to; IPv6 without brackets.
    package var host: String
    /// The port written in `host`, else 80 for `ws` and 443 for `wss`.
    package var port: Int
    /// The percent-encoded path, with the real token.
    package var path: String
    /// The URL with the token segment as `***`, for logs, status lines and the CLI.
    package var redactedURL: String
    /// The `Host` header: the default port is omitted, an IPv6 address is bracketed.
    package var hostHeader: String

    /// `host:port` for a proxy's `CONNECT`: the port always, an IPv6 address bracketed.
    package var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    package init(scheme: String, host: String, port: Int, path: String, redactedURL: String, hostHeader: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.redactedURL = redactedURL
        self.hostHeader = hostHeader
    }
}

extension Configuration {
    /// The primary server's endpoint.
    package var endpoint: ServerEndpoint { endpoint(for: host) }

    /// Every server's endpoint, the primary first.
    package var endpoints: [ServerEndpoint] { hosts.map(endpoint(for:)) }

    /// The endpoint of one of `hosts`.
    ///
    /// A loaded configuration has valid hosts; should one be set by hand to something that does
    /// not parse, the text is used as the name as it stands, so that the connection attempt fails
    /// visibly rather than this property trapping.
    package func endpoint(for host: String) -> ServerEndpoint {
        let scheme = tls ? "wss" : "ws"
        let defaultPort = tls ? 443 : 80
        let address = (try? HostAndPort.parse(host).get()) ?? HostAndPort(name: host, port: nil)
        let port = address.port ?? defaultPort
        let bracketed = address.isIPv6 ? "[\(address.name)]" : address.name
        let hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        return ServerEndpoint(
            scheme: scheme,
            host: address.name,
            port: port,
            path: expandedPath(token: PathSegment.percentEncoded(token.value)),
            redactedURL: "\(scheme)://\(hostHeader)\(expandedPath(token: "***"))",
            hostHeader: hostHeader
        )
    }

    private func expandedPath(token: String) -> String {
        pathTemplate
            .replacing("{client}", with: PathSegment.percentEncoded(client))
            .replacing("{org}", with: PathSegment.percentEncoded(org))
            .replacing("{host}", with: PathSegment.percentEncoded(hostIdentity?.value ?? ""))
            .replacing("{token}", with: token)
    }
}
