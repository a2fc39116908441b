// SPDX-License-Identifier: Apache-2.0

/// The database schema of intrapush: every migration, oldest first.
///
/// `notifications` is a public interface (people query it with sqlite3): its columns keep
/// their names and meanings forever; later migrations may only add. The daemon migrates on open; the CLI, which
/// opens read-only, calls `Schema.migrator.checkVersion(of:)` instead.
package enum Schema {
    package static let migrations: [Migration] = [
        Migration(
            version: 1,
            summary: "create notifications and daemon_state",
            sql: """
                CREATE TABLE notifications (
                    id INTEGER PRIMARY KEY,
                    message_id TEXT UNIQUE,
                    received_at INTEGER NOT NULL,
                    payload TEXT NOT NULL,
                    title TEXT,
                    body TEXT,
                    read_at INTEGER
                );
                CREATE INDEX notifications_received_at ON notifications(received_at);
                CREATE TABLE daemon_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    pid INTEGER,
                    state TEXT NOT NULL,
                    server TEXT,
                    connected_since INTEGER,
                    last_heartbeat_at INTEGER,
                    last_push_at INTEGER,
                    reconnect_attempt INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER,
                    last_error TEXT,
                    received_total INTEGER NOT NULL DEFAULT 0,
                    stored_total INTEGER NOT NULL DEFAULT 0,
                    duplicate_total INTEGER NOT NULL DEFAULT 0,
                    acked_total INTEGER NOT NULL DEFAULT 0,
                    connections_total INTEGER NOT NULL DEFAULT 0,
                    started_at INTEGER,
                    updated_at INTEGER NOT NULL
                );
                """
        ),
        Migration(
            version: 2,
            summary: "index unread and read notifications",
            // `intrapush list --unread` finds the newest unread without a scan, and `count --unread`
            // counts whichever of the two sets is smaller (see NotificationReader.countUnread).
            // Appending a new id to the unread index is all the daemon pays per push.
            sql: """
                CREATE INDEX notifications_unread ON notifications(id) WHERE read_at IS NULL;
                CREATE INDEX notifications_read ON notifications(id) WHERE read_at IS NOT NULL;
                """
        ),
        Migration(
            version: 3,
            summary: "retention and hook figures in daemon_state",
            // The policy the running daemon applies (NULL: not known), what pruning did, and the
            // on_notification hook's counters, all for `intrapush status`. last_prune_at and
            // pruned_total are written by each prune batch, in the transaction of its DELETE.
            sql: """
                ALTER TABLE daemon_state ADD COLUMN retention_days INTEGER;
                ALTER TABLE daemon_state ADD COLUMN retention_max_rows INTEGER;
                ALTER TABLE daemon_state ADD COLUMN last_prune_at INTEGER;
                ALTER TABLE daemon_state ADD COLUMN pruned_total INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE daemon_state ADD COLUMN hook_runs INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE daemon_state ADD COLUMN hook_failures INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE daemon_state ADD COLUMN hook_timeouts INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE daemon_state ADD COLUMN hook_dropped INTEGER NOT NULL DEFAULT 0;
                """
        ),
        Migration(
            version: 4,
            summary: "the outbox: messages for the server",
            // A public table like notifications (docs/database.md, "The outbox table"). `id` is the queue order;
            // AUTOINCREMENT so that an id is never reused after pruning (the daemon reads on from
            // the last id it loaded).
            // A message id may be queued again once the earlier one is finished, hence a partial
            // unique index on what still waits (a request waits until its reply).
            sql: """
                CREATE TABLE outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    message_id TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('message', 'request', 'read_receipt')),
                    payload TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'sent', 'delivered', 'replied', 'expired')),
                    queued_at INTEGER NOT NULL,
                    expires_at INTEGER,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    sent_at INTEGER,
                    delivered_at INTEGER,
                    reply TEXT,
                    replied_at INTEGER,
                    expired_at INTEGER
                );
                CREATE UNIQUE INDEX outbox_waiting_message_id ON outbox(message_id)
                    WHERE state IN ('queued', 'sent') OR (kind = 'request' AND state = 'delivered');
                CREATE INDEX outbox_undelivered ON outbox(id) WHERE state IN ('queued', 'sent');
                CREATE INDEX outbox_expiry ON outbox(expires_at)
                    WHERE expires_at IS NOT NULL
                    AND (state IN ('queued', 'sent') OR (kind = 'request' AND state = 'delivered'));
                CREATE INDEX outbox_finished ON outbox(queued_at) WHERE state IN ('delivered', 'replied', 'expired');
                """
        ),
        Migration(
            version: 5,
            summary: "priority, link and recipients of notifications",
            // Public columns too (docs/database.md): the level 1–5 (NULL: none named), the
            // link as the server wrote it, the names a push is addressed to (one per line, NULL:
            // everyone; see `Recipients`). Readers of an older file read them as NULL.
            sql: """
                ALTER TABLE notifications ADD COLUMN priority INTEGER;
                ALTER TABLE notifications ADD COLUMN link TEXT;
                ALTER TABLE notifications ADD COLUMN recipients TEXT;
                """
        ),
        Migration(
            version: 6,
            summary: "read marks per person",
            // A public table too (docs/database.md): who marked which notification read
            // and when; `reader` is the uid, -1 for a mark made before marks were per person,
            // which counts as read for everyone. `notifications.read_at` stays the first time
            // anyone marked it. The trigger keeps pruning a single DELETE. The index by reader and
            // the one of addressed rows (a push to everyone adds nothing to it) let a count subtract
            // the small sets instead of probing each row (NotificationReader.countByArithmetic).
            sql: """
                CREATE TABLE notification_reads (
                    notification_id INTEGER NOT NULL,
                    reader INTEGER NOT NULL,
                    read_at INTEGER NOT NULL,
                    PRIMARY KEY (notification_id, reader)
                ) WITHOUT ROWID;
                INSERT INTO notification_reads (notification_id, reader, read_at)
                    SELECT id, -1, read_at FROM notifications WHERE read_at IS NOT NULL;
                CREATE INDEX notification_reads_by_reader ON notification_reads(reader, notification_id);
                CREATE INDEX notifications_addressed ON notifications(recipients) WHERE recipients IS NOT NULL;
                CREATE TRIGGER notification_reads_follow_deletes AFTER DELETE ON notifications
                BEGIN
                    DELETE FROM notification_reads WHERE notification_id = old.id;
                END;
                """
        ),
        Migration(
            version: 7,
            summary: "index the high and urgent notifications",
            // `--priority high` (or urgent) finds its rows through this index instead of walking
            // every normal one (NotificationReader.narrowIndex): those are few, and a push of
            // normal priority, or none, adds nothing to it.
            sql: """
                CREATE INDEX notifications_urgent ON notifications(id) WHERE priority >= 4;
                """
        ),
    ]

    package static let migrator = Migrator(migrations: migrations)

    /// The `user_version` of a database this build has fully migrated.
    package static var latestVersion: Int { migrator.latestVersion }
}
