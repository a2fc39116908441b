// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
import TestSupport
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import IntrapushConfiguration

/// A temporary directory holding a configuration file and a token, removed when released.
final class ConfigurationFixture {
    static let token = "s3cret/T0ken+value="

    private let temporary: TemporaryDirectory
    var directory: String { temporary.path }
    var environment: [String: String]

    /// A fresh directory with `token` in `token`, found through `CREDENTIALS_DIRECTORY` as under systemd.
    init() throws {
        temporary = try TemporaryDirectory("config")
        environment = ["CREDENTIALS_DIRECTORY": temporary.path]
        try write("token", Self.token + "\n")
    }

    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        let path = "\(directory)/\(name)"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func makeDirectory(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: "\(directory)/\(name)", withIntermediateDirectories: true)
    }

    var configurationPath: String { "\(directory)/intrapush.conf" }

    /// A loader whose default file and default token file live in the fixture's directory.
    var loader: ConfigurationLoader {
        ConfigurationLoader(
            environment: environment,
            defaultFile: "\(directory)/default.conf",
            defaultTokenFile: "\(directory)/default-token",
            defaultSealedTokenFile: "\(directory)/sealed-token")
    }

    /// Loads `toml` written as the configuration file and named like `--config` does (or no file
    /// at all when `nil`).
    func load(
        _ toml: String?, purpose: ConfigurationLoader.Purpose = .daemon
    ) throws(ConfigurationError) -> LoadedConfiguration {
        if let toml {
            do { try write("intrapush.conf", toml) } catch { Issue.record(error) }
        }
        return try loader.load(explicitPath: toml == nil ? nil : configurationPath, purpose: purpose)
    }

    /// The problems loading `toml` reports; records an issue when it loads.
    func problems(
        _ toml: String?, purpose: ConfigurationLoader.Purpose = .daemon,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ConfigurationError {
        do {
            let loaded = try load(toml, purpose: purpose)
            Issue.record("expected a configuration error, loaded \(loaded.configuration)", sourceLocation: sourceLocation)
            return ConfigurationError(problems: [])
        } catch {
            return error
        }
    }

    /// A valid file with `lines` appended, so that the first appended line is line 3.
    static func minimal(_ lines: String...) -> String {
        (["host = \"push.corp:8080\"", "org = \"acme\""] + lines).joined(separator: "\n") + "\n"
    }
}

extension ConfigurationError {
    /// The one problem about `key`; records an issue when there is not exactly one.
    func problem(
        _ key: String?, sourceLocation: SourceLocation = #_sourceLocation
    ) -> ConfigurationProblem? {
        let matching = problems.filter { $0.key == key }
        #expect(matching.count == 1, "problems about \(key ?? "nil"): \(description)", sourceLocation: sourceLocation)
        return matching.first
    }
}
