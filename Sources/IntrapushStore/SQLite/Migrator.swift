// SPDX-License-Identifier: Apache-2.0

/// Applies forward-only migrations, tracked by `PRAGMA user_version`.
///
/// Each step runs in its own `BEGIN IMMEDIATE` transaction together with its version bump, so a
/// crash leaves the database at a whole version. The version is read again inside each transaction,
/// so two processes migrating the same file at once apply every step exactly once.
package struct Migrator: Sendable {
    /// The steps, in order; versions are 1, 2, 3, … without gaps.
    package let migrations: [Migration]

    package init(migrations: [Migration]) {
        precondition(
            migrations.enumerated().allSatisfy { $0.element.version == $0.offset + 1 },
            "migration versions must be 1, 2, 3, … in order"
        )
        self.migrations = migrations
    }

    /// The version a fully migrated database has.
    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Reads the database's version without changing anything, e.g. on a read-only connection.
    ///
    /// - Returns: the version, which may be older than `latestVersion` (migration pending).
    /// - Throws: `SchemaVersionError` when the database is newer than this build.
    @discardableResult
    package func checkVersion(of connection: SQLiteConnection) throws -> Int {
        let version = try connection.userVersion()
        guard version <= latestVersion else {
            throw SchemaVersionError(databaseVersion: version, supportedVersion: latestVersion)
        }
        return version
    }

    /// Brings the database up to `latestVersion`.
    ///
    /// - Returns: the versions applied by this call; empty when the database was up to date.
    @discardableResult
    package func migrate(_ connection: SQLiteConnection) throws -> [Int] {
        // Up to date is the common case: answer it without taking the write lock.
        guard try checkVersion(of: connection) < latestVersion else { return [] }
        var applied: [Int] = []
        for migration in migrations {
            let didApply = try connection.transaction {
                guard try checkVersion(of: connection) < migration.version else { return false }
                try connection.execute(migration.sql)
                try connection.setUserVersion(migration.version)
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }
}
