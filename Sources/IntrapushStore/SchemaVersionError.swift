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
