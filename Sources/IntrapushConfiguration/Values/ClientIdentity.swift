// SPDX-License-Identifier: Apache-2.0

/// `tls_cert_file` and `tls_key_file`: the certificate (chain) and private key the daemon shows a
/// server that asks for one (mutual TLS).
///
/// `fingerprint` is a 64-bit FNV-1a digest of both files as read at load time: a reload that
/// finds the same paths with the same contents keeps the connection, a renewed certificate
/// opens a new one. Only the digest is kept, never the key's bytes.
package struct ClientIdentity: Sendable, Equatable {
    package var certificateFile: String
    package var keyFile: String
    package var fingerprint: UInt64

    package init(certificateFile: String, keyFile: String, fingerprint: UInt64) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.fingerprint = fingerprint
    }

    static func fingerprint(of contents: [[UInt8]]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for bytes in contents {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
            hash ^= 0xFF  // a separator: ("ab", "c") differs from ("a", "bc")
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}

/// Checks that a certificate and key, as read by the loader, parse and belong together (the daemon
/// passes NIOSSL's check; this target has no TLS library). Returns the problem, or nil.
package typealias ClientIdentityCheck = @Sendable (
    _ certificate: (path: String, pem: [UInt8]), _ key: (path: String, pem: [UInt8])
) -> ClientIdentityProblem?

package struct ClientIdentityProblem: Sendable, Equatable {
    /// Whether the certificate or the key is at fault.
    package enum Culprit: Sendable { case certificate, key }
    package var culprit: Culprit
    package var message: String

    package init(_ culprit: Culprit, _ message: String) {
        self.culprit = culprit
        self.message = message
    }
}
