/// One forward step of the database schema: the SQL that takes it from `version - 1` to `version`.
public struct Migration: Sendable {
    /// The `user_version` the database has once this step is applied.
    public let version: Int
    /// What the step does, for logs.
    public let summary: String
    /// One or more SQL statements, run in the step's transaction.
    public let sql: String

    public init(version: Int, summary: String, sql: String) {
        self.version = version
        self.summary = summary
        self.sql = sql
    }
}
