/// The database was written by a newer intrapush whose schema this one does not know.
///
/// Migrations only go forward, so the only remedy is a newer intrapush.
public struct SchemaVersionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database's `user_version`.
    public let databaseVersion: Int
    /// The newest version this build knows.
    public let supportedVersion: Int

    public init(databaseVersion: Int, supportedVersion: Int) {
        self.databaseVersion = databaseVersion
        self.supportedVersion = supportedVersion
    }

    public var description: String {
        "database schema version \(databaseVersion) is newer than this intrapush understands "
            + "(\(supportedVersion)); upgrade intrapush"
    }
}
