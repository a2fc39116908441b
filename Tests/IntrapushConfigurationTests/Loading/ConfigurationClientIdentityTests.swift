// SPDX-License-Identifier: Apache-2.0

import Foundation
import IntrapushConfiguration
import Testing

@testable import IntrapushDaemonKit

@Suite("Configuration: tls_cert_file and tls_key_file")
struct ConfigurationClientIdentityTests {
    /// The fixture's credentials (its token) in a directory of their own, as systemd keeps them.
    @discardableResult
    static func moveCredentials(of fixture: inout ConfigurationFixture) throws -> String {
        let credentials = fixture.directory + "/credentials"
        mkdir(credentials, 0o700)
        let token = try String(contentsOfFile: fixture.directory + "/token", encoding: .utf8)
        try token.write(toFile: credentials + "/token", atomically: false, encoding: .utf8)
        fixture.environment["CREDENTIALS_DIRECTORY"] = credentials
        return credentials
    }

    /// A certificate and its key, and another key, made by openssl (a real PKI tool).
    static func makePKI(in directory: String) throws {
        let script = """
            set -e; cd \(directory)
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout client.key -out client.pem -days 1 -subj /CN=client 2>/dev/null
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout other.key -out other.pem -days 1 -subj /CN=other 2>/dev/null
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "openssl")
    }

    func loader(_ fixture: ConfigurationFixture) -> ConfigurationLoader {
        var loader = fixture.loader
        loader.clientIdentityCheck = ClientTLSIdentity.check
        return loader
    }

    func problems(_ fixture: ConfigurationFixture, _ lines: String...) -> [ConfigurationProblem] {
        do {
            try fixture.write("intrapush.conf", ConfigurationFixture.minimal(lines.joined(separator: "\n")))
            _ = try loader(fixture).load(explicitPath: fixture.configurationPath, purpose: .daemon)
            return []
        } catch let error as ConfigurationError {
            return error.problems
        } catch {
            Issue.record(error)
            return []
        }
    }

    @Test("a matching pair loads; its fingerprint changes when a file's content does")
    func matchingPair() throws {
        var fixture = try ConfigurationFixture()
        // Not where the key is: a key readable by others there is the warning's case.
        try Self.moveCredentials(of: &fixture)
        try Self.makePKI(in: fixture.directory)
        let lines = ConfigurationFixture.minimal(
            "tls = true", #"tls_cert_file = "\#(fixture.directory)/client.pem""#, #"tls_key_file = "\#(fixture.directory)/client.key""#)
        try fixture.write("intrapush.conf", lines)
        chmod(fixture.directory + "/client.key", 0o644)
        let loaded = try loader(fixture).load(explicitPath: fixture.configurationPath, purpose: .daemon)
        #expect(loaded.warnings.contains { $0.contains("can be read by others (mode 644)") }, "\(loaded.warnings)")
        chmod(fixture.directory + "/client.key", 0o600)
        let first = try loader(fixture).load(explicitPath: fixture.configurationPath, purpose: .daemon).configuration
        #expect(try loader(fixture).load(explicitPath: fixture.configurationPath, purpose: .daemon).warnings.isEmpty)
        let identity = try #require(first.clientIdentity)
        #expect(identity.certificateFile == fixture.directory + "/client.pem")
        #expect(first.rendered().contains("tls_key_file = \"\(fixture.directory)/client.key\""))
        let again = try loader(fixture).load(explicitPath: fixture.configurationPath, purpose: .daemon).configuration
        #expect(again.connection == first.connection, "unchanged files: the connection is kept on reload")
        try FileManager.default.removeItem(atPath: fixture.directory + "/client.pem")
        try FileManager.default.copyItem(atPath: fixture.directory + "/other.pem", toPath: fixture.directory + "/client.pem")
        try FileManager.default.removeItem(atPath: fixture.directory + "/client.key")
        try FileManager.default.copyItem(atPath: fixture.directory + "/other.key", toPath: fixture.directory + "/client.key")
        let renewed = try loader(fixture).load(explicitPath: fixture.configurationPath, purpose: .daemon).configuration
        #expect(renewed.connection != first.connection, "a renewed certificate opens a new connection")
    }

    @Test("a key passed as systemd's credential (0440, in a directory only the unit enters) draws no warning")
    func credentialKeyIsNoWarning() throws {
        var fixture = try ConfigurationFixture()
        let credentials = try Self.moveCredentials(of: &fixture)
        try Self.makePKI(in: fixture.directory)
        let key = try String(contentsOfFile: fixture.directory + "/client.key", encoding: .utf8)
        try key.write(toFile: credentials + "/tls_key", atomically: false, encoding: .utf8)
        chmod(credentials + "/tls_key", 0o440)
        try fixture.write("intrapush.conf", ConfigurationFixture.minimal("tls = true", #"tls_cert_file = "\#(fixture.directory)/client.pem""#))
        let loaded = try loader(fixture).load(explicitPath: fixture.configurationPath, purpose: .daemon)
        #expect(loaded.configuration.clientIdentity?.keyFile == credentials + "/tls_key")
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
    }

    @Test("a key of another certificate, a missing key, a file that is no PEM, and no tls are refused, naming the key")
    func refusals() throws {
        let fixture = try ConfigurationFixture()
        try Self.makePKI(in: fixture.directory)
        let d = fixture.directory
        let mismatch = problems(fixture, "tls = true", #"tls_cert_file = "\#(d)/client.pem""#, #"tls_key_file = "\#(d)/other.key""#)
        #expect(mismatch.map(\.key) == ["tls_key_file"] && mismatch[0].message.contains("does not belong to the certificate"), "\(mismatch)")
        let missing = problems(fixture, "tls = true", #"tls_cert_file = "\#(d)/client.pem""#)
        #expect(missing.map(\.key) == ["tls_key_file"] && missing[0].message.contains("LoadCredential=tls_key"), "\(missing)")
        try fixture.write("junk.pem", "not a certificate\n")
        let junk = problems(fixture, "tls = true", #"tls_cert_file = "\#(d)/junk.pem""#, #"tls_key_file = "\#(d)/client.key""#)
        #expect(junk.map(\.key) == ["tls_cert_file"] && junk[0].message.contains("no PEM certificate"), "\(junk)")
        let plain = problems(fixture, "tls = false", #"tls_cert_file = "\#(d)/client.pem""#, #"tls_key_file = "\#(d)/client.key""#)
        #expect(plain.map(\.key) == ["tls_cert_file"] && plain[0].message.contains("needs tls = true"), "\(plain)")
        // The key's content never appears in a message.
        let key = try String(contentsOfFile: d + "/other.key", encoding: .utf8)
        let body = key.split(separator: "\n").dropFirst().first.map(String.init) ?? "-"
        #expect(!(mismatch + missing + junk + plain).contains { $0.description.contains(body) })
    }

    @Test("under the unit the key may come as the credential tls_key")
    func keyFromCredential() throws {
        let fixture = try ConfigurationFixture()
        try Self.makePKI(in: fixture.directory)
        // ConfigurationFixture's CREDENTIALS_DIRECTORY is its own directory.
        try FileManager.default.copyItem(atPath: fixture.directory + "/client.key", toPath: fixture.directory + "/tls_key")
        try fixture.write("intrapush.conf", ConfigurationFixture.minimal("tls = true", #"tls_cert_file = "\#(fixture.directory)/client.pem""#))
        let configuration = try loader(fixture).load(explicitPath: fixture.configurationPath, purpose: .daemon).configuration
        #expect(configuration.clientIdentity?.keyFile == fixture.directory + "/tls_key")
    }
}
