// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushConfiguration

@Suite("A token over ws:// to another host is warned about")
struct ConfigurationCleartextTokenTests {
    func warnings(_ extra: String) throws -> [String] {
        try ConfigurationFixture().load("org = \"acme\"\ntoken = \"s3cr3t-token\"\n" + extra).warnings
    }

    @Test("tls = false to a name or address that is not this machine: a warning that says what to do, without the token")
    func warnsOffLoopback() throws {
        for host in ["push.corp:8080", "10.1.2.3", "[fd00::1]:443"] {
            let found = try warnings("host = \"\(host)\"\ntls = false\n").filter { $0.contains("travels in clear") }
            #expect(found.count == 1, "\(host)")
            #expect(found.allSatisfy { $0.contains("set tls = true") && !$0.contains("s3cr3t") })
        }
    }

    @Test("no warning with tls, on loopback, or when the token is in none of path, headers and hello_text")
    func quietOtherwise() throws {
        for extra in [
            "host = \"push.corp\"\ntls = true\n", "host = \"push.corp\"\n", "host = \"127.0.0.1:8080\"\ntls = false\n",
            "host = \"localhost\"\ntls = false\n", "host = \"[::1]:80\"\n", "host = \"push.corp\"\ntls = false\npath = \"/connect/{org}\"\n",
        ] {
            #expect(try warnings(extra).allSatisfy { !$0.contains("travels in clear") }, "\(extra)")
        }
        #expect(try warnings("host = \"push.corp\"\ntls = false\npath = \"/c\"\nheaders = [\"Authorization: Bearer {token}\"]\n")
            .contains { $0.contains("travels in clear") })
    }
}
