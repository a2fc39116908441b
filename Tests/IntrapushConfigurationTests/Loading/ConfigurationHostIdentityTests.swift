// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

/// `host_id`, the identity derived from the machine id, and `{host}` (protocol §10, C-HOST-1, C-HOST-2).
@Suite("Configuration of the host's identity: host_id, the derived identity, {host}")
struct ConfigurationHostIdentityTests {
    static let derived = "0123456789abcdef0123456789abcdef"

    private func loader(_ fixture: ConfigurationFixture, deriving: Result<String, ConfigurationLoader.HostIdentityUnavailable>) -> ConfigurationLoader {
        var loader = fixture.loader
        loader.deriveHostIdentity = { deriving }
        return loader
    }

    private func load(
        _ toml: String, fixture: ConfigurationFixture,
        deriving: Result<String, ConfigurationLoader.HostIdentityUnavailable> = .success(derived)
    ) throws(ConfigurationError) -> Configuration {
        do { try fixture.write("intrapush.conf", toml) } catch { Issue.record(error) }
        return try loader(fixture, deriving: deriving).load(explicitPath: fixture.configurationPath, purpose: .daemon).configuration
    }

    @Test("unset, the identity is the one derived from the machine id; host_id, when set, wins")
    func derivedOrConfigured() throws {
        let fixture = try ConfigurationFixture()
        let derived = try load(ConfigurationFixture.minimal(), fixture: fixture)
        #expect(derived.hostIdentity == HostIdentity(value: Self.derived, origin: .machine))
        #expect(derived.connection.hostIdentity == Self.derived)
        #expect(derived.rendered().contains("# host_id: \(Self.derived), derived from this machine's id for intrapush"))

        let configured = try load(ConfigurationFixture.minimal(#"host_id = "desk-042.floor3""#), fixture: fixture)
        #expect(configured.hostIdentity == HostIdentity(value: "desk-042.floor3", origin: .configured))
        #expect(configured.rendered().contains(#"host_id = "desk-042.floor3""#))

        fixture.environment["INTRAPUSH_HOST_ID"] = "from-env"
        #expect(try load(ConfigurationFixture.minimal(), fixture: fixture).hostIdentity?.value == "from-env")
    }

    @Test("a host_id a header or a path could not carry as it is is refused, naming host_id (exit 78)")
    func badHostID() throws {
        let fixture = try ConfigurationFixture()
        for bad in ["", "desk 42", "desk/42", "dësk", String(repeating: "x", count: 65), "{token}"] {
            do {
                _ = try load(ConfigurationFixture.minimal("host_id = \"\(bad)\""), fixture: fixture)
                Issue.record("host_id \(bad) was accepted")
            } catch {
                #expect(error.problem("host_id") != nil, "host_id \(bad)")
            }
        }
        #expect(throws: Never.self) { _ = try load(ConfigurationFixture.minimal("host_id = \"\(String(repeating: "x", count: 64))\""), fixture: fixture) }
    }

    @Test("no machine id and no host_id: the daemon refuses to start and says what to do")
    func noMachineID() throws {
        let fixture = try ConfigurationFixture()
        do {
            _ = try load(
                ConfigurationFixture.minimal(), fixture: fixture,
                deriving: .failure(.init(reason: "/etc/machine-id: No such file or directory")))
            Issue.record("loaded without an identity")
        } catch {
            let message = error.problem("host_id")?.description ?? ""
            #expect(message.contains("/etc/machine-id: No such file or directory"))
            #expect(message.contains("systemd-machine-id-setup"))
            #expect(message.contains("set host_id"))
        }
        // With host_id the machine id is not needed.
        #expect(throws: Never.self) {
            _ = try load(
                ConfigurationFixture.minimal(#"host_id = "image-7""#), fixture: fixture,
                deriving: .failure(.init(reason: "none")))
        }
    }

    @Test("{host} is filled in path, headers and hello_text; {token} after it, so a token holding {host} stays whole")
    func placeholders() throws {
        let fixture = try ConfigurationFixture()
        let configuration = try load(
            ConfigurationFixture.minimal(
                #"path = "/connect/{client}/{org}/{host}/{token}""#, #"headers = ["X-Desk: {host}"]"#,
                #"hello_text = '{"host":"{host}","token":"{token}"}'"#, #"host_id = "desk-1""#, #"token = "t{host}""#),
            fixture: fixture)
        let connection = configuration.connection
        #expect(connection.endpoint.path == "/connect/linux/acme/desk-1/t%7Bhost%7D")
        #expect(connection.endpoint.redactedURL == "wss://push.corp:8080/connect/linux/acme/desk-1/***")
        #expect(connection.headers == [HandshakeHeader(name: "X-Desk", value: "desk-1")])
        #expect(connection.helloText == #"{"host":"desk-1","token":"t{host}"}"#)
    }

    @Test("Intrapush-Host in headers is refused: the daemon sends it itself")
    func reservedHeader() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal(#"headers = ["Intrapush-Host: mine"]"#))
        #expect(error.problem("headers")?.description.contains("set host_id to choose the name") == true)
    }

    @Test("the CLI's loader derives nothing: it needs no identity, and reads no machine id")
    func cliKnowsNone() throws {
        let fixture = try ConfigurationFixture()
        let loaded = try fixture.load(ConfigurationFixture.minimal(), purpose: .databaseOnly)
        #expect(loaded.configuration.hostIdentity == nil)
    }
}
