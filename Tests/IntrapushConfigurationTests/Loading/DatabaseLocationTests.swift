// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushConfiguration

/// The one rule the CLI and the desktop agent follow to find the daemon's database.
@Suite struct DatabaseLocationTests {
    @Test("--database, then INTRAPUSH_DATABASE unless a file is named, then the file's key, then the default")
    func precedence() throws {
        let fixture = try ConfigurationFixture()
        let named = try fixture.write("named.conf", "database = \"/from/named.sqlite3\"\n")
        try fixture.write("default.conf", "database = \"/from/default-file.sqlite3\"\n")
        fixture.environment["INTRAPUSH_DATABASE"] = "/from/environment.sqlite3"
        #expect(try fixture.loader.locateDatabase("/from/flag.sqlite3", configurationFile: named).path == "/from/flag.sqlite3")
        let fromEnvironment = try fixture.loader.locateDatabase(nil, configurationFile: nil)
        #expect(fromEnvironment.path == "/from/environment.sqlite3" && fromEnvironment.configuration == nil)
        // A file named on the command line is read; the variable still overrides its key, as the
        // daemon's INTRAPUSH_ overrides do.
        #expect(try fixture.loader.locateDatabase(nil, configurationFile: named).path == "/from/environment.sqlite3")
        fixture.environment["INTRAPUSH_DATABASE"] = nil
        #expect(try fixture.loader.locateDatabase(nil, configurationFile: named).path == "/from/named.sqlite3")
        #expect(try fixture.loader.locateDatabase("", configurationFile: nil).path == "/from/default-file.sqlite3")
        fixture.environment["STATE_DIRECTORY"] = "/run/state"
        try fixture.write("default.conf", "host = \"example.org\"\n")
        #expect(try fixture.loader.locateDatabase(nil, configurationFile: nil).path == "/run/state/notifications.sqlite3")
    }

    @Test("the token is never read, and a bad database key is named")
    func onlyTheDatabaseKey() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["CREDENTIALS_DIRECTORY"] = "/nonexistent"
        let named = try fixture.write("named.conf", "database = \"\"\nheartbeat_interval = \"soon\"\n")
        #expect(throws: ConfigurationError.self) { try fixture.loader.locateDatabase(nil, configurationFile: named) }
        try fixture.write("named.conf", "database = \"/x.sqlite3\"\nheartbeat_interval = \"soon\"\n")
        #expect(try fixture.loader.locateDatabase(nil, configurationFile: named).path == "/x.sqlite3")
    }
}
