#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore

/// Read-only access to the daemon's database for the CLI.
///
/// Opens the file with `SQLITE_OPEN_READONLY`: a WAL reader never blocks the daemon's writes, and
/// the daemon never blocks it. Each query runs in its own read transaction, so it sees everything
/// committed before it started. Not thread-safe, like the connection it wraps.
package final class NotificationReader {
    package let path: String
    let connection: SQLiteConnection

    /// Opens `path` read-only and checks that this build understands its schema.
    ///
    /// - Throws: `DatabaseError` when the file cannot be opened or is not a database;
    ///   `SchemaVersionError` when a newer intrapush wrote it; `UninitializedDatabaseError` when no
    ///   daemon has created the tables yet.
    package init(path: String, busyTimeout: Duration = .milliseconds(2000)) throws {
        self.path = path
        var connection = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: busyTimeout)
        var version: Int
        do {
            version = try Schema.migrator.checkVersion(of: connection)
        } catch let error as DatabaseError where (error.isReadOnly || error.isCannotOpen) && Self.isIdle(path) {
            // A WAL reader needs the -shm file, and creating it needs write access to the
            // directory, which a member of the intrapush group lacks once the daemon has stopped
            // and removed its -wal and -shm. Then every commit is in the main file and no one
            // writes it: reading it as immutable is exact.
            connection = try SQLiteConnection(path: path, mode: .readOnlyImmutable, busyTimeout: busyTimeout)
            version = try Schema.migrator.checkVersion(of: connection)
        }
        self.connection = connection
        guard version >= 1 else { throw UninitializedDatabaseError(path: path) }
        try connection.registerFunctions()
    }

    /// No `-wal` file: no writer has the database open, and the main file holds every commit.
    private static func isIdle(_ path: String) -> Bool {
        access(path + "-wal", F_OK) != 0 && errno == ENOENT
    }

    private var isMapped = false
    /// Below this many ids a parallel `--grep` scan costs more than it saves (tests lower it).
    var parallelScanThreshold: Int64 = 100_000

    /// Before a full scan (`--grep` over a million rows): reading mapped pages instead of copying
    /// each with pread(2) makes the scan ~35% faster, but mapping and unmapping the file costs
    /// ~20 ms of page-table work that an indexed query does not win back.
    func mapFileForScan(_ query: NotificationQuery) throws {
        guard query.text != nil, !isMapped else { return }
        // SQLite caps this at its compile-time maximum (2 GiB in Debian's build).
        try connection.execute("PRAGMA mmap_size = 4294967296")
        isMapped = true
    }

    /// Calls `body` with each selected notification, in the query's order, without holding them all.
    package func forEach(_ query: NotificationQuery, _ body: (NotificationRecord) throws -> Void) throws {
        if let records = try parallelRecords(query) {
            for record in records { try body(record) }
            return
        }
        try mapFileForScan(query)
        let (sql, values) = query.selectSQL()
        let statement = try connection.prepare(sql)
        try statement.bind(values)
        while try statement.step() {
            try body(NotificationRecord(row: statement))
        }
    }

    package func records(_ query: NotificationQuery) throws -> [NotificationRecord] {
        var records: [NotificationRecord] = []
        try forEach(query) { records.append($0) }
        return records
    }

    /// How many notifications the query selects (its limit and order do not matter).
    package func count(_ query: NotificationQuery) throws -> Int64 {
        if query.unreadOnly, query.since == nil, query.until == nil, query.text == nil {
            return try countUnread()
        }
        if let count = try parallelCount(query) { return count }
        try mapFileForScan(query)
        let (filter, values) = query.filter()
        return try integer("SELECT count(*) FROM notifications" + filter, values)
    }

    /// The number of unread notifications, in time proportional to the SMALLER of the read and the
    /// unread sets: `count(*)` of the whole table is cheap (SQLite counts b-tree cells without
    /// reading rows), so when few are unread they are counted, and when few are read,
    /// unread = all − read. A million unread rows cost ~40 ms to count directly.
    ///
    /// - Parameter total: the number of rows, when the caller has counted them already.
    package func countUnread(ofTotal total: Int64? = nil) throws -> Int64 {
        let total = try total ?? integer("SELECT count(*) FROM notifications")
        let half = total / 2
        let read = try integer(
            "SELECT count(*) FROM (SELECT 1 FROM notifications WHERE read_at IS NOT NULL LIMIT ?)", [.integer(half + 1)])
        if read <= half { return total - read }
        return try integer("SELECT count(*) FROM notifications WHERE read_at IS NULL")
    }

    /// The notification with this local id, `nil` when there is none.
    package func notification(id: Int64) throws -> NotificationRecord? {
        var query = NotificationQuery()
        query.idRange = id...id
        return try records(query).first
    }

    /// Notifications stored after `id`, oldest first, at most `limit`: what `follow` prints next.
    package func notifications(after id: Int64, limit: Int = 1000) throws -> [NotificationRecord] {
        guard id < .max else { return [] }
        var query = NotificationQuery(limit: limit, order: .oldestFirst)
        query.idRange = (id + 1)...Int64.max
        return try records(query)
    }

    /// The highest id stored, 0 when the table is empty.
    package func latestID() throws -> Int64 {
        try integer("SELECT coalesce(max(id), 0) FROM notifications")
    }

    /// The daemon's live state; `nil` when no daemon has written it yet.
    package func liveState() throws -> LiveState? {
        try LiveState.read(from: connection)
    }

    func integer(_ sql: String, _ values: [SQLValue] = []) throws -> Int64 {
        let statement = try connection.prepare(sql)
        try statement.bind(values)
        try statement.step()
        return statement.int64(at: 0)
    }
}
