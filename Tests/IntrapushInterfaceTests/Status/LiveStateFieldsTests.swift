// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushInterface
@testable import IntrapushQuery
@testable import IntrapushStore
@testable import IntrapushSupport
import TestSupport

/// `LiveState.fields` is the one list of the live state's fields; the row of `daemon_state`, the
/// local API's `DaemonState` and `intrapush status --json` derive from it. These hold it to the
/// struct and to the interface file, and each mapping to every field.
@Suite("The live state's fields: one list, the row, the local API and status --json derived from it")
struct LiveStateFieldsTests {
    /// Every field set, each to a value of its own.
    static func everything() -> LiveState {
        var state = LiveState(
            pid: 4242, state: .waitingForNetwork, server: "ws://h:1/c/***", connectedSince: 11, lastHeartbeatAt: 12,
            lastPushAt: 13, reconnectAttempt: 14, nextAttemptAt: 15, lastError: "e\nf", receivedTotal: 16, storedTotal: 17,
            duplicateTotal: 18, ackedTotal: 19, connectionsTotal: 20, startedAt: 21, updatedAt: 22, retentionDays: 23,
            retentionMaxRows: 24, lastPruneAt: 25, prunedTotal: 26, hookRuns: 27, hookFailures: 28, hookTimeouts: 29,
            hookDropped: 30)
        state.primaryServer = "ws://p:1/c/***"
        state.primaryUnreachableSince = 31
        state.commitRunningSince = 32
        state.hostID = "desk-33"
        return state
    }

    static func camel(_ name: String) -> String {
        let words = name.split(separator: "_")
        // `id` is written `ID` in Swift names (hostID), as the Varlink generator writes it.
        return words.first.map(String.init)! + words.dropFirst().map { $0 == "id" ? "ID" : $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    @Test("the list names every stored property of LiveState once, and exactly the fields of DaemonState in the interface")
    func oneList() {
        let names = LiveState.fields.map(\.name)
        #expect(Set(names).count == names.count, "a field listed twice")
        let properties = Mirror(reflecting: Self.everything()).children.compactMap(\.label)
        #expect(names.map(Self.camel).sorted() == properties.sorted())
        #expect(Set(names) == DaemonInterface.DaemonState.fieldNames)
        let description = LocalAPIInterfaces.descriptions["io.intrapush.Daemon"] ?? ""
        let declared = description.split(separator: "\n").drop { !$0.hasPrefix("type DaemonState") }.dropFirst()
            .prefix { !$0.hasPrefix(")") }.map { String($0.split(separator: ":")[0].drop { $0 == " " }) }
        #expect(declared == names, "in the interface's order")
    }

    @Test("each field set reads back from the local API, and from the row when the row keeps it")
    func everyFieldRoundTrips() throws {
        let state = Self.everything()
        #expect(LiveState(state.localAPIValue) == state)
        #expect(state.localAPIValue.varlinkJSON["state"] == .string("waiting_for_network"))
        let directory = try TemporaryDirectory("live-state")
        let store = try NotificationStore(path: directory.file())
        try store.writeLiveState(state)
        let read = try #require(try LiveState.read(from: SQLiteConnection(path: directory.file(), mode: .readOnly)))
        for field in LiveState.fields {
            switch field.keeping {
            case .written: #expect(field.get(read) == field.get(state), "\(field.name) in the row")
            case .pruner: #expect(field.get(read) == field.get(LiveState(state: .connecting, updatedAt: 0)), "\(field.name) is the pruner's")
            case .memory: #expect(field.get(read) == field.get(LiveState(state: .connecting, updatedAt: 0)), "\(field.name) is not in the row")
            }
        }
    }

    @Test("every state the daemon is in has its Varlink name, and back")
    func states() {
        #expect(LiveState.State.known.count == DaemonInterface.DaemonState.State.allCases.count)
        for state in LiveState.State.known {
            let named = DaemonInterface.DaemonState.State(state)
            #expect(named.liveState == state && !named.rawValue.contains("-"))
            #expect(named != .connecting || state == .connecting, "\(state) has a name of its own")
        }
    }

    @Test("status --json shows every field once, under its name or its group's key")
    func json() throws {
        let report = StatusReport(state: Self.everything(), daemonVersion: "9", liveness: .running,
                                  database: .init(path: "/d", sizeBytes: 1, notifications: 2, unread: 1), now: 40)
        let object = try #require(JSONValue.parse(report.json()))
        let grouped = Dictionary(uniqueKeysWithValues: StatusReport.jsonGroups.flatMap { group in
            group.members.map { ($0.field, object[group.key]?[$0.key]) }
        })
        for field in LiveState.fields {
            let shown = grouped[field.name] ?? object[field.name]
            #expect(shown != nil && shown != .null, "\(field.name) is shown")
        }
        #expect(object["state"] == .string("waiting-for-network") && object["retention"]?["days"] == JSONValue(23))
    }
}
