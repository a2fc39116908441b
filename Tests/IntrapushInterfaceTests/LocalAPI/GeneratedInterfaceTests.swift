// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import IntrapushInterface
@testable import IntrapushStore
@testable import IntrapushSupport

/// The types generated from packaging/varlink/: what a service takes (strictly: an unknown,
/// missing or mistyped parameter is named), what a client reads (leniently), and that the
/// descriptions the daemon returns are the files themselves.
@Suite("The local API's generated interfaces")
struct GeneratedInterfaceTests {
    func call(_ method: String, _ parameters: [String: JSONValue] = [:]) -> VarlinkCall {
        VarlinkCall(method: method, parameters: parameters)
    }

    @Test("the descriptions are the repository's interface files, and GetInfo's version is the package's")
    func descriptions() throws {
        #expect(LocalAPIInterfaces.descriptions.keys.sorted() == [
            "io.intrapush.Daemon", "io.intrapush.Notifications", "io.intrapush.Outbox", "org.varlink.service",
        ])
        for (name, description) in LocalAPIInterfaces.descriptions {
            let file = try String(contentsOfFile: "packaging/varlink/\(name).varlink", encoding: .utf8)
            #expect(file == description + "\n", "packaging/varlink/\(name).varlink differs: run make generate")
        }
        let changelog = try String(contentsOfFile: "debian/changelog", encoding: .utf8)
        #expect(changelog.hasPrefix("intrapush (\(LocalAPIInterfaces.version)-"), "GetInfo's version is the package's")
    }

    @Test("a call is decoded as its interface declares it; anything else is the error org.varlink.service names")
    func strictCalls() {
        let list = NotificationsInterface.Call.decode(call(
            "io.intrapush.Notifications.List", ["filter": .object(["unread": .bool(true), "after_id": JSONValue(4)]), "limit": JSONValue(5)]))
        guard case .success(.list(let parameters)) = list else { Issue.record("\(list)"); return }
        #expect(parameters.filter?.unread == true && parameters.filter?.afterID == 4 && parameters.limit == 5 && parameters.oldestFirst == nil)
        func failure(_ call: VarlinkCall) -> VarlinkServiceInterface.Failure? {
            if case .failure(let failure) = NotificationsInterface.Call.decode(call) { return failure }
            return nil
        }
        #expect(failure(call("io.intrapush.Notifications.Delete")) == .methodNotFound(method: "io.intrapush.Notifications.Delete"))
        #expect(failure(call("io.intrapush.Notifications.Show")) == .invalidParameter(parameter: "id"), "missing")
        #expect(failure(call("io.intrapush.Notifications.Show", ["id": .string("7")])) == .invalidParameter(parameter: "id"), "mistyped")
        #expect(failure(call("io.intrapush.Notifications.Show", ["id": JSONValue(7), "as_root": .bool(true)]))
            == .invalidParameter(parameter: "as_root"), "unknown, as systemd's services refuse it")
        #expect(failure(call("io.intrapush.Notifications.Count", ["filter": .object(["grep": JSONValue(3)])]))
            == .invalidParameter(parameter: "filter.grep"), "nested, named by its path")
        #expect(failure(call("io.intrapush.Notifications.Count", ["filter": .object(["user": .string("bob")])]))
            == .invalidParameter(parameter: "filter.user"))
        guard case .success(.wake) = OutboxInterface.Call.decode(call("io.intrapush.Outbox.Wake")) else { Issue.record("Wake is declared"); return }
        guard case .failure(.invalidParameter(parameter: "timeout_ms")) = OutboxInterface.Call.decode(
            call("io.intrapush.Outbox.Send", ["message": .string("{}"), "timeout_ms": JSONValue(5)]))
        else { Issue.record("Send takes no timeout"); return }
    }

    @Test("an interface's errors round-trip by name; another interface's are not its own")
    func failures() {
        let failure = NotificationsInterface.Failure.noSuchNotification(id: 7, message: "no notification 7")
        #expect(failure.varlinkError.name == "io.intrapush.Notifications.NoSuchNotification")
        #expect(NotificationsInterface.Failure(failure.varlinkError) == failure)
        #expect(NotificationsInterface.Failure(OutboxInterface.Failure.busy(message: "x").varlinkError) == nil)
        #expect(OutboxInterface.Failure(VarlinkError("io.intrapush.Outbox.Refused", ["reason": .string("too-large")])) == nil, "message missing")
        var extended = OutboxInterface.Failure.refused(reason: "duplicate", message: "m").varlinkError
        extended.parameters["since"] = JSONValue(3)
        #expect(OutboxInterface.Failure(extended) == .refused(reason: "duplicate", message: "m"), "a newer daemon's extra parameter is skipped")
        #expect(VarlinkServiceInterface.Failure(VarlinkServiceInterface.Failure.expectedMore.varlinkError) == .expectedMore)
        #expect(Set(NotificationsInterface.Failure.names) == [
            "io.intrapush.Notifications.NoSuchNotification", "io.intrapush.Notifications.PermissionDenied",
            "io.intrapush.Notifications.Busy", "io.intrapush.Notifications.StoreFailed",
        ])
    }

    @Test("a notification and a filter read back as the record and the query they came from")
    func conversions() throws {
        let record = NotificationRecord(
            id: 9, messageID: "m9", receivedAt: 100, payload: #"{"t":1}"#, title: "T", body: nil, readAt: 200,
            priority: .high, link: "https://x", recipients: Recipients.column(for: ["alice", "team"]))
        let json = record.localAPIValue.varlinkJSON
        #expect(json["body"] == .null, "an absent field is null, as before")
        #expect(NotificationRecord(try NotificationsInterface.Notification(varlink: json, at: "", strict: false)) == record)

        var query = NotificationQuery(since: 5, until: 10, unreadOnly: true, text: TextMatch("disk"))
        query.minimumPriority = .high
        query.idRange = 8...20
        let (read, mine) = try NotificationQuery.reading(filter: query.localAPIFilter).get()
        #expect(read.since == 5 && read.until == 10 && read.unreadOnly && read.text?.needle == "disk")
        #expect(read.minimumPriority == .high && read.idRange == 8...20 && !mine)
        #expect(NotificationQuery.reading(filter: .init(grep: "")).failure == .invalidParameter(parameter: "filter.grep"))
        #expect(NotificationQuery.reading(filter: .init(priority: 9)).failure == .invalidParameter(parameter: "filter.priority"))
        #expect(NotificationQuery.reading(filter: .init(afterID: 5, lastID: 5)).failure == .invalidParameter(parameter: "filter.last_id"))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
