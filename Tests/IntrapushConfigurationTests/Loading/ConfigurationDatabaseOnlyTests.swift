// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Configuration for the database only")
struct ConfigurationDatabaseOnlyTests {
    @Test("host, org and the token are not needed, and the token file is not read")
    func noConnectionSettings() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["CREDENTIALS_DIRECTORY"] = "\(fixture.directory)/no-such-directory"
        let loaded = try fixture.load(#"database = "/srv/db.sqlite3""# + "\n", purpose: .databaseOnly)
        #expect(loaded.configuration.database == "/srv/db.sqlite3")
        #expect(loaded.configuration.token.value.isEmpty)
    }

    @Test("other bad values fall back to their defaults")
    func lenient() throws {
        let fixture = try ConfigurationFixture()
        let loaded = try fixture.load(
            "heartbeat_interval = \"soon\"\nhost = \"a b\"\ntoken = \"\"\nca_file = \"/nowhere\"\n", purpose: .databaseOnly)
        #expect(loaded.configuration.heartbeatInterval == .seconds(10))
        #expect(loaded.configuration.database == "/var/lib/intrapush/notifications.sqlite3")
    }

    @Test("syntax errors, unknown keys, tables and a bad database still count")
    func strictWhereItMatters() throws {
        let fixture = try ConfigurationFixture()
        #expect(fixture.problems("database = = 1\n", purpose: .databaseOnly).problem(nil)?.line == 1)
        let error = fixture.problems("databse = \"/x\"\ndatabase = 42\n[extra]\n", purpose: .databaseOnly)
        #expect(error.problems.count == 3)
        #expect(error.problem("databse")?.message == "unknown key; did you mean database?")
        #expect(error.problem("database")?.description == "\(fixture.configurationPath):2: database: expected a string (was 42)")
        #expect(error.problem("extra")?.line == 3)
    }

    @Test("an empty INTRAPUSH_DATABASE is refused, naming the variable")
    func emptyDatabaseVariable() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_DATABASE"] = ""
        let error = fixture.problems(nil, purpose: .databaseOnly)
        #expect(error.problem("INTRAPUSH_DATABASE")?.message == #"must not be empty (was "")"#)
    }

    @Test("an unreadable default file is a warning for the CLI but an error for the daemon")
    func unreadableDefaultFile() throws {
        let fixture = try ConfigurationFixture()
        // A directory where the file should be: unreadable even for root.
        try fixture.makeDirectory("default.conf")
        let loaded = try fixture.loader.load(explicitPath: nil, purpose: .databaseOnly)
        #expect(loaded.files.isEmpty)
        #expect(loaded.warnings == ["\(fixture.directory)/default.conf: cannot read the configuration file (is a directory); using the environment and defaults"])
        #expect(throws: ConfigurationError.self) { try fixture.loader.load(explicitPath: nil, purpose: .daemon) }
    }
}
