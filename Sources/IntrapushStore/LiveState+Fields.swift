// SPDX-License-Identifier: Apache-2.0

extension LiveState {
    /// A field's value as it leaves the process: a text or an integer (a time is Unix
    /// milliseconds), `nil` when unknown.
    package enum Value: Equatable, Sendable {
        case text(String?)
        case integer(Int64?)

        package var text: String? { if case .text(let text) = self { text } else { nil } }
        package var integer: Int64? { if case .integer(let integer) = self { integer } else { nil } }
    }

    /// One field of the live state. `fields` is the one place each is named: the column of
    /// `daemon_state`, the field of the local API's `DaemonState` and the key of `intrapush status
    /// --json` are its `name`, and each of those mappings is derived from the list.
    package struct Field: Sendable {
        package enum Kind: Sendable {
            case text
            case integer
            /// Unix milliseconds; shown as a time.
            case time
        }

        /// Where the field is kept besides the daemon's memory.
        package enum Keeping: Sendable, Equatable {
            /// A column of `daemon_state` that every live-state write sets, added by schema version `schema`.
            case written(schema: Int)
            /// A column the pruner sets in the transaction of each DELETE, so that a stale copy of
            /// the state cannot undo it: a live-state write leaves it.
            case pruner(schema: Int)
            /// Known to the running daemon only; not in the row.
            case memory
        }

        package let name: String
        package let kind: Kind
        package let keeping: Keeping
        package let get: @Sendable (LiveState) -> Value
        package let set: @Sendable (inout LiveState, Value) -> Void

        /// The schema version whose `daemon_state` has the column; `nil` for a field kept in memory only.
        package var column: Int? {
            switch keeping {
            case .written(let schema), .pruner(let schema): schema
            case .memory: nil
            }
        }
    }

    /// Every field, in the order of `DaemonState` in io.intrapush.Daemon.varlink.
    package static let fields: [Field] = [
        Field(name: "state", kind: .text, keeping: .written(schema: 1),
              get: { .text($0.state.rawValue) }, set: { $0.state = State(rawValue: $1.text ?? "") }),
        optional("pid", \.pid, .written(schema: 1)),
        text("server", \.server, .written(schema: 1)),
        text("primary_server", \.primaryServer, .memory),
        optional("primary_unreachable_since", \.primaryUnreachableSince, .memory, kind: .time),
        text("host_id", \.hostID, .memory),
        optional("connected_since", \.connectedSince, .written(schema: 1), kind: .time),
        optional("last_heartbeat_at", \.lastHeartbeatAt, .written(schema: 1), kind: .time),
        optional("last_push_at", \.lastPushAt, .written(schema: 1), kind: .time),
        optional("commit_running_since", \.commitRunningSince, .memory, kind: .time),
        number("reconnect_attempt", \.reconnectAttempt, .written(schema: 1)),
        optional("next_attempt_at", \.nextAttemptAt, .written(schema: 1), kind: .time),
        text("last_error", \.lastError, .written(schema: 1)),
        number("received_total", \.receivedTotal, .written(schema: 1)),
        number("stored_total", \.storedTotal, .written(schema: 1)),
        number("duplicate_total", \.duplicateTotal, .written(schema: 1)),
        number("acked_total", \.ackedTotal, .written(schema: 1)),
        number("connections_total", \.connectionsTotal, .written(schema: 1)),
        optional("started_at", \.startedAt, .written(schema: 1), kind: .time),
        Field(name: "updated_at", kind: .time, keeping: .written(schema: 1),
              get: { .integer($0.updatedAt) }, set: { $0.updatedAt = $1.integer ?? 0 }),
        optional("retention_days", \.retentionDays, .written(schema: 3)),
        optional("retention_max_rows", \.retentionMaxRows, .written(schema: 3)),
        optional("last_prune_at", \.lastPruneAt, .pruner(schema: 3), kind: .time),
        number("pruned_total", \.prunedTotal, .pruner(schema: 3)),
        number("hook_runs", \.hookRuns, .written(schema: 3)),
        number("hook_failures", \.hookFailures, .written(schema: 3)),
        number("hook_timeouts", \.hookTimeouts, .written(schema: 3)),
        number("hook_dropped", \.hookDropped, .written(schema: 3)),
    ]

    /// The field called `name`.
    package static func field(_ name: String) -> Field? { fields.first { $0.name == name } }

    private static func number<N: FixedWidthInteger & Sendable>(
        _ name: String, _ path: WritableKeyPath<LiveState, N> & Sendable, _ keeping: Field.Keeping
    ) -> Field {
        Field(name: name, kind: .integer, keeping: keeping,
              get: { .integer(Int64($0[keyPath: path])) }, set: { $0[keyPath: path] = N(clamping: $1.integer ?? 0) })
    }

    private static func optional<N: FixedWidthInteger & Sendable>(
        _ name: String, _ path: WritableKeyPath<LiveState, N?> & Sendable, _ keeping: Field.Keeping, kind: Field.Kind = .integer
    ) -> Field {
        Field(name: name, kind: kind, keeping: keeping,
              get: { .integer($0[keyPath: path].map { Int64($0) }) }, set: { $0[keyPath: path] = $1.integer.map { N(clamping: $0) } })
    }

    private static func text(_ name: String, _ path: WritableKeyPath<LiveState, String?> & Sendable, _ keeping: Field.Keeping) -> Field {
        Field(name: name, kind: .text, keeping: keeping, get: { .text($0[keyPath: path]) }, set: { $0[keyPath: path] = $1.text })
    }
}
