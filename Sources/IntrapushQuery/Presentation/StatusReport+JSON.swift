// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport

extension StatusReport {
    /// Fields `status --json` shows in an object of their own, under their own key there.
    static let jsonGroups: [(key: String, members: [(field: String, key: String)])] = [
        ("retention", [("retention_days", "days"), ("retention_max_rows", "max_rows"), ("last_prune_at", "last_prune_at"),
                       ("pruned_total", "pruned_total")]),
        ("hook", [("hook_runs", "runs"), ("hook_failures", "failures"), ("hook_timeouts", "timeouts"), ("hook_dropped", "dropped")]),
    ]
    /// Fields added after the object was first released: at its end, after the database's, in the
    /// order they were added.
    static let jsonLast = ["commit_running_since", "host_id"]

    /// `status --json`: one object; the live state's fields under their names (`LiveState.fields`),
    /// times RFC 3339 like `--json` elsewhere, absent ones null.
    package func json() -> String {
        var output = "{\"running\":\(liveness == .running || liveness == .unresponsive)"
        output += ",\"liveness\":\"\(liveness.rawValue)\""
        output += ",\"version\":" + Self.jsonText(daemonVersion)
        let grouped = Set(Self.jsonGroups.flatMap { $0.members.map(\.field) })
        for field in LiveState.fields where !grouped.contains(field.name) && !Self.jsonLast.contains(field.name) {
            if field.name == "primary_server" {
                output += ",\"fallback\":" + (state.map { $0.primaryServer != nil ? "true" : "false" } ?? "null")
            }
            output += ",\"\(field.name)\":" + jsonValue(field)
        }
        for group in Self.jsonGroups {
            let members = group.members.compactMap { member in
                LiveState.field(member.field).map { "\"\(member.key)\":" + jsonValue($0) }
            }
            output += ",\"\(group.key)\":{" + members.joined(separator: ",") + "}"
        }
        output += ",\"database\":{"
        output += "\"path\":" + Self.jsonText(database.path)
        output += ",\"size_bytes\":\(database.sizeBytes),\"notifications\":\(database.notifications)"
        output += ",\"unread\":\(database.unread)}"
        output += ",\"outbox_waiting\":\(database.outboxWaiting),\"outbox_oldest_queued_at\":"
        output += database.outboxOldestQueuedAt.map { "\"" + Timestamp.rfc3339(milliseconds: $0) + "\"" } ?? "null"
        for field in Self.jsonLast.compactMap(LiveState.field) {
            output += ",\"\(field.name)\":" + jsonValue(field)
        }
        output += "}\n"
        return output
    }

    /// A field of the state as JSON; null without a state.
    private func jsonValue(_ field: LiveState.Field) -> String {
        guard let state else { return "null" }
        switch (field.get(state), field.kind) {
        case (.integer(let time?), .time): return "\"\(Timestamp.rfc3339(milliseconds: time))\""
        case (.integer(let integer?), _): return String(integer)
        case (.text(let text?), _): return Self.jsonText(text)
        default: return "null"
        }
    }

    private static func jsonText(_ text: String?) -> String {
        guard let text else { return "null" }
        var output = ""
        JSONText.appendQuoted(text, to: &output)
        return output
    }
}
