// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// An HTTP proxy the WebSocket goes through with `CONNECT` (contract §8): from `proxy`, else from
/// `https_proxy` (wss) or `http_proxy` (ws) in the environment, unless `no_proxy` names the server.
///
/// The credentials are a secret like the token: `description` shows them as `***`.
package struct HTTPProxy: Sendable, Equatable, CustomStringConvertible {
    /// The proxy's name or address (IPv6 without brackets) and port.
    package var host: String
    package var port: Int
    /// `user:password` as written (percent-decoded), for `Proxy-Authorization: Basic`.
    package var credentials: Secret?
    /// Where it came from, for messages: `proxy`, `https_proxy`, `HTTPS_PROXY`, `http_proxy`.
    package var source: String

    package init(host: String, port: Int, credentials: Secret? = nil, source: String) {
        self.host = host
        self.port = port
        self.credentials = credentials
        self.source = source
    }

    package var description: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "http://\(credentials == nil ? "" : "***@")\(bracketed):\(port)"
    }

    /// Parses `http://[user:password@]host[:port][/]`; the port defaults to 80 (curl's 1080 is for
    /// SOCKS). Returns the reason on failure, never repeating the text (it may hold a password).
    static func parse(_ text: String, source: String) -> Result<HTTPProxy, HostError> {
        var rest = Substring(text)
        if let scheme = rest.firstRange(of: "://") {
            guard rest[..<scheme.lowerBound].lowercased() == "http" else {
                return .failure(HostError("only http:// proxies are supported (CONNECT; the TLS of wss runs inside the tunnel)"))
            }
            rest = rest[scheme.upperBound...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var credentials: Secret?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            guard userInfo.contains(":") else { return .failure(HostError("expected user:password@ before the host")) }
            guard let decoded = String(percentDecoding: userInfo) else {
                return .failure(HostError("the user or password has a malformed %-escape"))
            }
            credentials = Secret(decoded)
            rest = rest[rest.index(after: at)...]
        }
        switch HostAndPort.parse(String(rest)) {
        case .success(let address):
            return .success(HTTPProxy(host: address.name, port: address.port ?? 80, credentials: credentials, source: source))
        case .failure(let error):
            return .failure(HostError("the proxy's host: \(error.reason)"))
        }
    }
}

/// `no_proxy`: comma- or space-separated entries; `*` matches every host, `corp.example` and
/// `.corp.example` match that domain and its subdomains, an IP address matches itself; an entry's
/// `:port` limits it to that port. Case does not matter.
package struct NoProxy: Sendable, Equatable {
    package var entries: [String]

    package init(_ text: String) {
        entries = text.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() }
    }

    package func excludes(host: String, port: Int) -> Bool {
        let host = host.lowercased()
        return entries.contains { entry in
            if entry == "*" { return true }
            var name = Substring(entry)
            if let colon = name.lastIndex(of: ":"), !name.hasPrefix("["), name.filter({ $0 == ":" }).count == 1 {
                guard Int(name[name.index(after: colon)...]) == port else { return false }
                name = name[..<colon]
            }
            if name.hasPrefix("[") && name.hasSuffix("]") { name = name.dropFirst().dropLast() }
            if name.hasPrefix(".") { name = name.dropFirst() }
            return host == name || host.hasSuffix("." + name)
        }
    }
}
