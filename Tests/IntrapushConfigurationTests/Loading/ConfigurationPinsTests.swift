// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushConfiguration

@Suite("tls_pins: checked at load")
struct ConfigurationPinsTests {
    static let first = "pin-sha256:" + String(repeating: "A", count: 43) + "="
    static let second = "pin-sha256:" + String(repeating: "B", count: 42) + "E="

    func load(_ pins: String, tls: Bool = true) throws -> LoadedConfiguration {
        try ConfigurationFixture().load("host = \"push.corp\"\norg = \"acme\"\ntls = \(tls)\ntls_pins = \(pins)\n")
    }

    @Test("two well-formed pins are kept as their digests and shown by --check-config")
    func accepted() throws {
        let loaded = try load("[\"\(Self.first)\", \"\(Self.second)\"]")
        #expect(loaded.configuration.tlsPins == [String(repeating: "A", count: 43) + "=", String(repeating: "B", count: 42) + "E="])
        #expect(loaded.configuration.rendered().contains("tls_pins = [\"\(Self.first)\", \"\(Self.second)\"]"))
        #expect(loaded.configuration.connection.tlsPins.count == 2)
    }

    @Test("a pin with stray bits in its last digit is kept as the spelling the connection compares with")
    func canonical() throws {
        let loaded = try load("[\"pin-sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa1=\", \"\(Self.first)\"]")
        #expect(loaded.configuration.tlsPins.first == "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        let same = ConfigurationFixture.problemText {
            try load("[\"pin-sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa1=\", \"pin-sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=\"]")
        }
        #expect(same.contains("at least two"), "two spellings of one digest are one pin")
    }

    @Test("refused, naming the key: one pin, the same pin twice, a malformed pin, pins without tls")
    func refused() {
        let cases = [
            "[\"\(Self.first)\"]": "at least two",
            "[\"\(Self.first)\", \"\(Self.first)\"]": "at least two",
            "[\"\(Self.first)\", \"sha256//AAAA\"]": "item 2 is not pin-sha256:",
            "[\"\(Self.first)\", \"pin-sha256:QUJD\"]": "item 2 is not pin-sha256:",
        ]
        for (pins, expected) in cases {
            #expect(throws: ConfigurationError.self) { try load(pins) }
            let message = (try? load(pins)).map { _ in "" } ?? ConfigurationFixture.problemText { try load(pins) }
            #expect(message.contains("tls_pins") && message.contains(expected), "\(pins): \(message)")
        }
        let noTLS = ConfigurationFixture.problemText { try load("[\"\(Self.first)\", \"\(Self.second)\"]", tls: false) }
        #expect(noTLS.contains("tls_pins") && noTLS.contains("needs tls = true"))
    }
}

extension ConfigurationFixture {
    /// The problems `load` throws, as one text.
    static func problemText(_ load: () throws -> LoadedConfiguration) -> String {
        do {
            _ = try load()
            return ""
        } catch {
            return "\(error)"
        }
    }
}
