// SPDX-License-Identifier: Apache-2.0

/// The database was written by a newer intrapush whose schema this one does not know.
///
/// Migrations only go forward, so the only remedy is a newer intrapush.
package struct SchemaVersionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database's `user_version`.
    package let databaseVersion: Int
    /// The newest version this build knows.
    package let supportedVersion: Int

    package init(databaseVersion: Int, supportedVersion: Int) {
        self.databaseVersion = databaseVersion
        self.supportedVersion = supportedVersion
    }

    package var description: String {
        "database schema version \(databaseVersion) is newer than this intrapush understands "
            + "(\(supportedVersion)); upgrade intrapush"
    }
}

/// The file is an SQLite database that no intrapushd has set up (its `user_version` is 0).
package struct UninitializedDatabaseError: Error, Sendable, CustomStringConvertible {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    package var description: String {
        "\(path) has no intrapush tables yet; intrapushd creates them when it first starts"
    }
}
