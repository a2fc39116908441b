// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore

/// The CLI's reads of notifications: lists, counts, searches, `follow`'s next rows, over the
/// read-only `DatabaseReader` every program beside the daemon uses.
package final class NotificationReader {
    package let database: DatabaseReader
    package var path: String { database.path }
    package var connection: SQLiteConnection { database.connection }

    /// Opens `path` read-only (see `DatabaseReader.init`).
    package init(path: String, busyTimeout: Duration = .milliseconds(2000)) throws {
        database = try DatabaseReader(path: path, busyTimeout: busyTimeout)
    }

    /// Rows an index may hold besides the query's for the query to be read through it
    /// (`narrowIndex`): fewer than a scan of the table would read in the same time.
    static let rowsThroughAnIndex: Int64 = 65536

    private var isMapped = false
    /// Below this many ids a parallel `--grep` scan costs more than it saves (tests lower it).
    /// `.max` keeps every scan on the calling thread (the daemon's query thread).
    package var parallelScanThreshold: Int64 = 100_000
    /// Set in the daemon: scans read in pieces instead (see `ScanPieces`).
    package var scanPieces: ScanPieces?

    /// Before a full scan (`--grep` over a large table): reading mapped pages instead of copying
    /// each with pread(2) makes the scan faster, but mapping and unmapping the file costs
    /// page-table work that an indexed query does not win back.
    func mapFileForScan(_ query: NotificationQuery) throws {
        guard query.text != nil, !isMapped else { return }
        // SQLite caps this at its compile-time maximum (2 GiB in Debian's build).
        try connection.execute("PRAGMA mmap_size = 4294967296")
        isMapped = true
    }

    /// Calls `body` with each selected notification, in the query's order, without holding them all.
    package func forEach(_ query: NotificationQuery, _ body: (NotificationRecord) throws -> Void) throws {
        if query.index == nil, let index = try narrowIndex(for: query, atMost: Self.rowsThroughAnIndex) {
            var narrowed = query
            narrowed.index = index
            return try plainForEach(narrowed, body)
        }
        if try piecewiseRecords(query, body) { return }
        if let records = try parallelRecords(query) {
            for record in records { try body(record) }
            return
        }
        try plainForEach(query, body)
    }

    /// One statement over the whole selection.
    func plainForEach(_ query: NotificationQuery, _ body: (NotificationRecord) throws -> Void) throws {
        try mapFileForScan(query)
        let (sql, values) = query.selectSQL(schemaVersion: try database.schemaVersion())
        let statement = try connection.prepare(sql)
        try statement.bind(values)
        while try statement.step() {
            try body(NotificationRecord(row: statement))
        }
    }

    func plainRecords(_ query: NotificationQuery) throws -> [NotificationRecord] {
        var records: [NotificationRecord] = []
        try plainForEach(query) { records.append($0) }
        return records
    }

    package func records(_ query: NotificationQuery) throws -> [NotificationRecord] {
        var records: [NotificationRecord] = []
        try forEach(query) { records.append($0) }
        return records
    }

    /// How many notifications the query selects (its limit and order do not matter).
    package func count(_ query: NotificationQuery) throws -> Int64 {
        if query.isCountedFromIndexes {
            if let viewer = query.viewer {
                if let count = try countByArithmetic(for: viewer, unreadOnly: query.unreadOnly) { return count }
            } else if query.unreadOnly {
                return try countUnread()
            }
        }
        if query.index == nil, let index = try narrowIndex(for: query, atMost: Self.rowsThroughAnIndex) {
            var narrowed = query
            narrowed.index = index
            return try plainCount(narrowed)
        }
        if let count = try piecewiseCount(query) { return count }
        if let count = try parallelCount(query) { return count }
        return try plainCount(query)
    }

    /// One statement counting the whole selection.
    func plainCount(_ query: NotificationQuery) throws -> Int64 {
        try mapFileForScan(query)
        let (filter, values) = query.filter(schemaVersion: try database.schemaVersion())
        return try integer("SELECT count(*) FROM \(query.source)" + filter, values)
    }

    /// An index that holds at most `limit` rows besides the query's own, through which its
    /// rows are then found in a bounded walk where a walk by id could pass every row: the index
    /// of times for a time range of few rows, that of the high and urgent for a query of those
    /// when they are few. Each is counted up to `limit + 1` entries. `nil`: none.
    package func narrowIndex(for query: NotificationQuery, atMost limit: Int64) throws -> NotificationIndex? {
        if query.since != nil || query.until != nil {
            var range = NotificationQuery()
            (range.since, range.until) = (query.since, query.until)
            let (filter, values) = range.filter()
            let entries = try integer(
                "SELECT count(*) FROM (SELECT 1 FROM notifications INDEXED BY \(NotificationIndex.time.rawValue)\(filter) LIMIT ?)",
                values + [.integer(limit + 1)])
            if entries <= limit { return .time }
        }
        if let priority = query.minimumPriority, priority >= .high, try database.schemaVersion() >= 7 {
            let entries = try integer(
                "SELECT count(*) FROM (SELECT 1 FROM notifications INDEXED BY \(NotificationIndex.urgent.rawValue) WHERE "
                    + "\(NotificationIndex.urgentCondition) LIMIT ?)", [.integer(limit + 1)])
            if entries <= limit { return .urgent }
        }
        return nil
    }

    /// Whether the query is counted from indexes (`isCountedFromIndexes`) over sets of at most
    /// `limit` entries each: the rows addressed to someone (when the viewer does not see them
    /// all) and, for the unread, the viewer's marks. Each set is counted up to `limit + 1`
    /// entries, so the answer costs a bounded walk; a count then costs about as much.
    package func isCountedCheaply(_ query: NotificationQuery, atMost limit: Int64) throws -> Bool {
        guard query.isCountedFromIndexes else { return false }
        // No viewer: a count(*), or the smaller of the read and the unread sets; as 0.6 did.
        guard let viewer = query.viewer, try database.schemaVersion() >= 6 else { return true }
        if viewer.hiddenCondition() != nil {
            let addressed = try integer(
                "SELECT count(*) FROM (SELECT 1 FROM notifications WHERE recipients IS NOT NULL LIMIT ?)", [.integer(limit + 1)])
            guard addressed <= limit else { return false }
        }
        guard query.unreadOnly else { return true }
        let marks = try integer(
            "SELECT count(*) FROM (SELECT 1 FROM notification_reads WHERE reader IN (?, ?) LIMIT ?)",
            [.integer(viewer.userID), .integer(Viewer.everyone), .integer(limit + 1)])
        return marks <= limit
    }

    /// What a person sees, or has unread, counted over the small sets instead of every row:
    /// all rows less those addressed to others (`notifications_addressed`, which holds only
    /// addressed rows); unread, less the person's marks and the marks from before marks were
    /// per person (by `notification_reads_by_reader`), plus those of them on rows the person
    /// does not see. A row never has both marks (a mark is made only on what is unread), so the
    /// sums count each read row once. `nil` for a file before per-person marks.
    func countByArithmetic(for viewer: Viewer, unreadOnly: Bool) throws -> Int64? {
        guard try database.schemaVersion() >= 6 else { return nil }
        var count = try database.countAll()
        var marksOnHidden: Int64 = 0
        if let hidden = viewer.hiddenCondition() {
            count -= try integer("SELECT count(*) FROM notifications WHERE " + hidden.sql, hidden.values)
            if unreadOnly {
                marksOnHidden = try integer(
                    "SELECT count(*) FROM notification_reads WHERE reader IN (?, ?) AND notification_id IN "
                        + "(SELECT id FROM notifications WHERE " + hidden.sql + ")",
                    [.integer(viewer.userID), .integer(Viewer.everyone)] + hidden.values)
            }
        }
        guard unreadOnly else { return count }
        let marks = try integer(
            "SELECT (SELECT count(*) FROM notification_reads WHERE reader = ?) + (SELECT count(*) FROM notification_reads WHERE reader = ?)",
            [.integer(viewer.userID), .integer(Viewer.everyone)])
        return count - marks + marksOnHidden
    }

    /// The number of unread notifications (see `DatabaseReader.countUnread`).
    package func countUnread(ofTotal total: Int64? = nil) throws -> Int64 {
        try database.countUnread(ofTotal: total)
    }

    /// The notification with this local id, `nil` when there is none.
    package func notification(id: Int64, viewer: Viewer? = nil) throws -> NotificationRecord? {
        var query = NotificationQuery()
        query.idRange = id...id
        query.viewer = viewer
        return try records(query).first
    }

    /// Notifications stored after `id`, oldest first, at most `limit`: what `follow` prints next.
    package func notifications(after id: Int64, limit: Int = 1000, viewer: Viewer? = nil) throws -> [NotificationRecord] {
        guard id < .max else { return [] }
        var query = NotificationQuery(limit: limit, order: .oldestFirst)
        query.idRange = (id + 1)...Int64.max
        query.viewer = viewer
        return try records(query)
    }

    /// The highest id stored, 0 when the table is empty.
    package func latestID() throws -> Int64 { try database.latestID() }

    /// The daemon's live state; `nil` when no daemon has written it yet.
    package func liveState() throws -> LiveState? { try database.liveState() }

    package func integer(_ sql: String, _ values: [SQLValue] = []) throws -> Int64 {
        let statement = try connection.prepare(sql)
        try statement.bind(values)
        try statement.step()
        return statement.int64(at: 0)
    }
}
