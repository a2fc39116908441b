// SPDX-License-Identifier: Apache-2.0

/// `metrics_listen`: an IP address and a port to listen on.
///
/// Accepts `127.0.0.1:9464`, `0.0.0.0:9464`, `[::1]:9464`, `[::]:9464` and `localhost:9464`
/// (the loopback address). A host name other than `localhost` is refused: which address a
/// listener binds must not depend on DNS.
package struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// An IPv4 or IPv6 address, IPv6 without brackets.
    package var address: String
    package var port: Int

    package init(address: String, port: Int) {
        self.address = address
        self.port = port
    }

    /// Parses `text`, or says what is wrong with it (the caller names the key and the value).
    static func parse(_ text: String) -> Result<ListenAddress, HostError> {
        let parsed: HostAndPort
        switch HostAndPort.parse(text) {
        case .success(let value): parsed = value
        case .failure(let error): return .failure(error)
        }
        guard let port = parsed.port else {
            return .failure(HostError("needs a port, like 127.0.0.1:9464"))
        }
        if parsed.name == "localhost" { return .success(ListenAddress(address: "127.0.0.1", port: port)) }
        guard parsed.isIPv6 || isIPv4(parsed.name) else {
            return .failure(HostError("expected an IP address (or localhost) and a port, like 127.0.0.1:9464 or [::1]:9464"))
        }
        return .success(ListenAddress(address: parsed.name, port: port))
    }

    package var description: String {
        address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
    }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) && Int(part).map { $0 <= 255 } == true
        }
    }
}
