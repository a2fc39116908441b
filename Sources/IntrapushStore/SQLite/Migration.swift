// SPDX-License-Identifier: Apache-2.0

/// One forward step of the database schema: the SQL that takes it from `version - 1` to `version`.
package struct Migration: Sendable {
    /// The `user_version` the database has once this step is applied.
    package let version: Int
    /// What the step does, for logs.
    package let summary: String
    /// One or more SQL statements, run in the step's transaction.
    package let sql: String

    package init(version: Int, summary: String, sql: String) {
        self.version = version
        self.summary = summary
        self.sql = sql
    }
}
