// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import NIOSSL
import Testing

@testable import IntrapushDaemonKit

@Suite("RFC 6125: a DNS name proves a host name")
struct ServerNameCheckTests {
    @Test("exact names, case and a trailing dot ignored")
    func exact() {
        #expect(ServerNameCheck.isProven(host: "push.corp.example", byDNSNames: ["push.corp.example"]))
        #expect(ServerNameCheck.isProven(host: "Push.Corp.Example.", byDNSNames: ["push.corp.example"]))
        #expect(ServerNameCheck.isProven(host: "localhost", byDNSNames: ["other", "LOCALHOST"]))
        #expect(!ServerNameCheck.isProven(host: "push.corp.example", byDNSNames: ["corp.example", "push.corp"]))
        #expect(!ServerNameCheck.isProven(host: "push.corp.example", byDNSNames: []))
    }

    @Test("a wildcard is the whole left-most label, stands for one label, and needs three labels")
    func wildcards() {
        #expect(ServerNameCheck.isProven(host: "push.corp.example", byDNSNames: ["*.corp.example"]))
        #expect(!ServerNameCheck.isProven(host: "a.push.corp.example", byDNSNames: ["*.corp.example"]))
        #expect(!ServerNameCheck.isProven(host: "corp.example", byDNSNames: ["*.corp.example"]))
        #expect(!ServerNameCheck.isProven(host: "push.corp", byDNSNames: ["*.corp"]))
        #expect(!ServerNameCheck.isProven(host: "push.corp.example", byDNSNames: ["pu*.corp.example", "push.*.example", "*"]))
        #expect(!ServerNameCheck.isProven(host: "*.corp.example", byDNSNames: ["x.corp.example"]))
    }

    @Test("the names of a real certificate are its DNS SANs only")
    func certificateNames() async throws {
        let temporary = try TemporaryDirectory("san")
        let directory = temporary.path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=common.example", "-addext", "subjectAltName=DNS:push.example,IP:127.0.0.1,DNS:*.corp.example",
            "-keyout", directory + "/k.pem", "-out", directory + "/c.pem",
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        let certificate = try NIOSSLCertificate(file: directory + "/c.pem", format: .pem)
        #expect(ServerIdentityVerifier.dnsNames(of: certificate) == ["push.example", "*.corp.example"])
    }
}
