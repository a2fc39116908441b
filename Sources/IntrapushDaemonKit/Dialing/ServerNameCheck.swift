// SPDX-License-Identifier: Apache-2.0

/// Whether a server certificate's names prove the configured host (RFC 6125, pure).
///
/// NIOSSL accepts a certificate whose only SAN is the connected IP address even when the
/// configured host is a name, and falls back to the subject's common name. A name is proven
/// here only by a DNS name in the subject alternative names: exactly, case-insensitively, or
/// by a wildcard that is the whole left-most label and stands for exactly one label, in a
/// pattern of three labels at least (`*.corp` proves nothing).
enum ServerNameCheck {
    static func isProven(host: String, byDNSNames names: [String]) -> Bool {
        let wanted = labels(of: host)
        guard !wanted.isEmpty, wanted.allSatisfy({ !$0.isEmpty }) else { return false }
        return names.contains { matches(wanted, pattern: labels(of: $0)) }
    }

    private static func matches(_ host: [Substring], pattern: [Substring]) -> Bool {
        guard pattern.count == host.count, pattern.allSatisfy({ !$0.isEmpty }) else { return false }
        if pattern[0] == "*" {
            return pattern.count >= 3 && !host[0].isEmpty && pattern.dropFirst() == host.dropFirst()
        }
        return !pattern.contains { $0.contains("*") } && pattern == host
    }

    /// Lower-cased labels without a trailing dot (`push.Corp.` and `push.corp` are one name).
    private static func labels(of name: String) -> [Substring] {
        var lowered = name.lowercased()[...]
        if lowered.hasSuffix(".") { lowered = lowered.dropLast() }
        return lowered.split(separator: ".", omittingEmptySubsequences: false)
    }
}
