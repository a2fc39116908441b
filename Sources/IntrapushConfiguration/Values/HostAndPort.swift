// SPDX-License-Identifier: Apache-2.0

/// The `host` setting split into a name (or IP address) and an optional port.
///
/// Accepts `name`, `name:port`, `192.0.2.1:port`, `[2001:db8::1]` and `[2001:db8::1]:port`.
struct HostAndPort: Sendable, Equatable {
    /// The name or address, IPv6 without brackets.
    var name: String
    var port: Int?

    var isIPv6: Bool { name.contains(":") }

    /// This machine itself: `localhost`, 127.0.0.0/8 or ::1. Nothing sent there crosses a network.
    var isLoopback: Bool {
        let lowered = name.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") || lowered == "::1" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Parses `text`, or says what is wrong with it (without repeating it; the caller adds the value).
    static func parse(_ text: String) -> Result<HostAndPort, HostError> {
        if text.isEmpty { return .failure(HostError("must not be empty")) }
        if text.contains("://") {
            return .failure(HostError("expected name[:port] without a scheme; the daemon speaks wss unless tls = false"))
        }
        if text.contains("/") { return .failure(HostError("expected name[:port] without a path; the path setting holds it")) }
        if text.contains(where: \.isWhitespace) { return .failure(HostError("must not contain white space")) }

        let name: Substring
        let portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                return .failure(HostError("an IPv6 address needs a closing bracket, like [2001:db8::1]:8080"))
            }
            name = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else {
                return .failure(HostError("expected [address]:port"))
            }
            portText = rest.isEmpty ? nil : rest.dropFirst()
            guard !name.isEmpty, name.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return .failure(HostError("expected an IPv6 address between the brackets"))
            }
        } else {
            let colons = text.filter { $0 == ":" }.count
            if colons > 1 {
                return .failure(HostError("an IPv6 address needs brackets, like [2001:db8::1]:8080"))
            }
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            name = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard !name.isEmpty else { return .failure(HostError("the name before the port is missing")) }
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
                return .failure(HostError("expected a host name of letters, digits, '-', '.' and '_' (use the punycode form of an international name)"))
            }
        }
        guard let portText else { return .success(HostAndPort(name: String(name), port: nil)) }
        guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText), (1...65535).contains(port)
        else {
            return .failure(HostError("the port must be a number from 1 to 65535"))
        }
        return .success(HostAndPort(name: String(name), port: port))
    }
}

/// Why a `host` value was refused.
struct HostError: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
