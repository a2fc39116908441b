// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import IntrapushConfiguration
import Testing

@Suite("A token the package sealed with systemd-creds is read through it where the 0600 file is not")
struct ConfigurationSealedTokenTests {
    /// Seals `token` into the fixture's sealed file as the package does; false where this machine
    /// cannot (no systemd-creds, no machine id, not root).
    /// A fixture outside the unit: no CREDENTIALS_DIRECTORY, as an administrator runs --check-config.
    func outsideTheUnit() throws -> ConfigurationFixture {
        let fixture = try ConfigurationFixture()
        fixture.environment = [:]
        return fixture
    }

    func seal(_ token: String, in fixture: ConfigurationFixture) throws -> Bool {
        guard FileManager.default.isExecutableFile(atPath: SealedToken.tool), getuid() == 0 else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SealedToken.tool)
        process.arguments = ["encrypt", "--with-key=auto", "--tpm2-pcrs=", "--name=token", "-", fixture.directory + "/sealed-token"]
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((token + "\n").utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test("sealed: the daemon's configuration reads it, and says where it came from")
    func sealed() throws {
        let fixture = try outsideTheUnit()
        guard try seal("s3aled-t0ken", in: fixture) else { return print("systemd-creds cannot seal here: not judged") }
        let loaded = try fixture.load("host = \"push.corp\"\norg = \"acme\"\n")
        #expect(loaded.configuration.token.value == "s3aled-t0ken")
        #expect(loaded.configuration.tokenSource == "the sealed \(fixture.directory)/sealed-token (systemd-creds)")
        #expect(!loaded.configuration.rendered(sources: loaded.sources).contains("s3aled"))
    }

    @Test("a sealed file this host cannot open: the key named, what to do said, exit 78's problem")
    func undecryptable() throws {
        let fixture = try outsideTheUnit()
        try fixture.write("sealed-token", "not a credential systemd-creds made\n")
        let problems = fixture.problems("host = \"push.corp\"\norg = \"acme\"\n")
        let problem = try #require(problems.problem("token_file"))
        #expect(problem.message.contains("cannot read the token sealed in \(fixture.directory)/sealed-token"))
        #expect(problem.message.contains("dpkg-reconfigure intrapush"))
    }

    @Test("the sealed token wins over a 0600 file beside it, as in the unit")
    func sealedFirst() throws {
        let fixture = try outsideTheUnit()
        try fixture.write("default-token", "by-hand\n")
        guard try seal("s3aled-t0ken", in: fixture) else { return print("systemd-creds cannot seal here: not judged") }
        let loaded = try fixture.load("host = \"push.corp\"\norg = \"acme\"\n")
        #expect(loaded.configuration.token.value == "s3aled-t0ken")
    }
}
