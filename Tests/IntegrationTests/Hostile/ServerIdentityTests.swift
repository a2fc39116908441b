// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    /// TLS against `openssl s_server -www` on loopback, which answers any GET with 200: a daemon
    /// that reports "upgrade refused with HTTP 200" has sent its upgrade request (with the token
    /// in its path). That may happen only when the certificate proves the configured name, over
    /// TLS 1.2 or later.
    @Suite("TLS: the server's name proven by a DNS name, TLS 1.2 at least")
    struct ServerIdentityTests {
        /// A self-signed certificate (its own CA) with `san`, and its key, in `directory`.
        func makeCertificate(_ name: String, san: String, in directory: TemporaryDirectory) async throws -> (certificate: String, key: String) {
            _ = try await shell(
                "cd '\(directory.path)' && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost "
                    + "-addext 'subjectAltName=\(san)' -keyout \(name).key -out \(name).pem 2>/dev/null",
                in: directory)
            return (directory.file("\(name).pem"), directory.file("\(name).key"))
        }

        /// `openssl s_server` on a free port with `certificate`; `extra` narrows its protocols.
        func startServer(_ certificate: (certificate: String, key: String), extra: [String] = [], in directory: TemporaryDirectory, name: String) throws -> (ManagedProcess, Int) {
            let port = try freeTCPPort()
            let server = try ManagedProcess(
                "/usr/bin/openssl",
                ["s_server", "-www", "-accept", "127.0.0.1:\(port)", "-cert", certificate.certificate, "-key", certificate.key] + extra,
                environment: ["OPENSSL_CONF": "/dev/null"], directory: directory, name: name)
            return (server, port)
        }

        func startDaemon(port: Int, ca: String, pins: [String] = [], in directory: TemporaryDirectory, name: String) throws -> DaemonHandle {
            var extra = ["host": "\"localhost:\(port)\"", "tls": "true", "ca_file": "\"\(ca)\""]
            if !pins.isEmpty { extra["tls_pins"] = "[" + pins.map { "\"pin-sha256:\($0)\"" }.joined(separator: ", ") + "]" }
            return try DaemonHandle(directory: directory, serverPort: port, token: "identity-token", extra: extra, name: name)
        }

        /// The pin of a certificate's key, as docs/operating.md says to make it.
        func pin(of certificate: String, in directory: TemporaryDirectory) async throws -> String {
            try await shell(
                "openssl x509 -in '\(certificate)' -noout -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
                in: directory)
        }

        @Test("tls_pins: a server whose key is pinned is reached; one whose key is not is refused in words, nothing sent")
        func pins() async throws {
            let directory = try TemporaryDirectory("it")
            let pinned = try await makeCertificate("pinned", san: "DNS:localhost", in: directory)
            let other = try await makeCertificate("other", san: "DNS:localhost", in: directory)
            let backup = try await makeCertificate("backup", san: "DNS:localhost", in: directory)
            let pins = [try await pin(of: pinned.certificate, in: directory), try await pin(of: backup.certificate, in: directory)]

            let (good, goodPort) = try startServer(pinned, in: directory, name: "pinned-server")
            let reached = try startDaemon(port: goodPort, ca: pinned.certificate, pins: pins, in: directory, name: "pinned-daemon")
            try await eventually("the pinned server to be reached") { reached.log.contains("upgrade refused with HTTP 200") }

            let (bad, badPort) = try startServer(other, in: directory, name: "other-server")
            let otherDirectory = try TemporaryDirectory("it")  // a database of its own: one daemon per database
            let refused = try startDaemon(port: badPort, ca: other.certificate, pins: pins, in: otherDirectory, name: "other-daemon")
            try await eventually("the refusal to be logged") { refused.log.contains("carries none of the keys in tls_pins") }
            #expect(refused.log.contains("pin-sha256:\(try await pin(of: other.certificate, in: directory))"), "the server's own pin is named")
            #expect(!refused.log.contains("HTTP 200"), "the upgrade request reached a server whose key is not pinned")
            withExtendedLifetime((good, bad)) {}
        }

        @Test("a certificate whose only SAN is the connected IP address does not prove the name: nothing is sent, and the log says why")
        func ipAddressDoesNotProveAName() async throws {
            let directory = try TemporaryDirectory("it")
            let certificate = try await makeCertificate("ip-only", san: "IP:127.0.0.1", in: directory)
            let (server, port) = try startServer(certificate, in: directory, name: "ip-server")
            let daemon = try startDaemon(port: port, ca: certificate.certificate, in: directory, name: "ip-daemon")
            try await eventually("the refusal to be logged") { daemon.log.contains("does not name localhost") }
            #expect(!daemon.log.contains("HTTP 200"), "the upgrade request reached the server")
            #expect(daemon.log.contains("an IP address or the common name does not prove a name"))
            withExtendedLifetime(server) {}
        }

        @Test("a DNS name in the certificate proves it: the upgrade request goes out")
        func dnsNameProvesIt() async throws {
            let directory = try TemporaryDirectory("it")
            let certificate = try await makeCertificate("dns", san: "DNS:localhost", in: directory)
            let (server, port) = try startServer(certificate, in: directory, name: "dns-server")
            let daemon = try startDaemon(port: port, ca: certificate.certificate, in: directory, name: "dns-daemon")
            try await eventually("the upgrade request to reach the server") { daemon.log.contains("upgrade refused with HTTP 200") }
            withExtendedLifetime(server) {}
        }

        @Test("a certificate the trust store does not vouch for is refused in words, as the server certificate refused event")
        func untrustedCertificate() async throws {
            let directory = try TemporaryDirectory("it")
            let served = try await makeCertificate("served", san: "DNS:localhost", in: directory)
            let trusted = try await makeCertificate("trusted", san: "DNS:localhost", in: directory)
            let (server, port) = try startServer(served, in: directory, name: "untrusted-server")
            let daemon = try startDaemon(port: port, ca: trusted.certificate, in: directory, name: "untrusted-daemon")
            try await eventually("the refusal to be logged") { daemon.log.contains("is not one the trust store vouches for") }
            #expect(daemon.log.contains("event=server_certificate_refused"), "the event an operator selects by")
            #expect(!daemon.log.contains("HTTP 200"), "nothing was sent to a server that proved nothing")
            withExtendedLifetime(server) {}
        }

        @Test("a server that offers TLS 1.1 at most is refused before anything is sent")
        func tlsOnePointOneRefused() async throws {
            let directory = try TemporaryDirectory("it")
            let certificate = try await makeCertificate("old", san: "DNS:localhost", in: directory)
            let (server, port) = try startServer(
                certificate, extra: ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"], in: directory, name: "old-server")
            let daemon = try startDaemon(port: port, ca: certificate.certificate, in: directory, name: "old-daemon")
            try await eventually("the failed handshake to be logged") { daemon.log.contains("TLS: handshakeFailed") }
            #expect(!daemon.log.contains("HTTP 200"), "the upgrade request reached a TLS 1.1 server")
            withExtendedLifetime(server) {}
        }
    }
}
