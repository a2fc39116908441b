// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import Testing

@testable import IntrapushDaemonKit

/// The events an operator acts on: each with a MESSAGE_ID of its own, each explained in the
/// catalog the package installs, and their fields named as the journal wants them.
@Suite("Journal events and their catalog")
struct JournalEventTests {
    @Test("every event has a distinct 128-bit MESSAGE_ID, and the catalog explains each and nothing else")
    func catalog() throws {
        let ids = JournalEvent.allCases.map(\.messageID)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        let catalog = try String(contentsOfFile: "packaging/intrapush.catalog", encoding: .utf8)
        let entries = catalog.split(separator: "\n").filter { $0.hasPrefix("-- ") }.map { String($0.dropFirst(3)) }
        #expect(entries.sorted() == ids.sorted(), "packaging/intrapush.catalog's entries are the events'")
        for event in JournalEvent.allCases {
            let entry = try #require(catalog.components(separatedBy: "-- \(event.messageID)\n").last)
            let text = entry.components(separatedBy: "\n-- ").first ?? entry
            #expect(text.contains("Subject: ") && text.contains("Defined-By: intrapush"), "\(event)")
            // Every field the entry substitutes is one the daemon sends with it (or the journal's own).
            for field in text.split(separator: "@").enumerated().filter({ $0.offset % 2 == 1 }).map({ String($0.element) }) {
                #expect(field.hasPrefix("INTRAPUSH_"), "\(event): @\(field)@")
            }
        }
    }

    @Test("metadata keys become journal field names; an event's line names it where there is no journal")
    func fieldsAndLines() {
        #expect(JournalLogHandler.fieldName("close_code") == "CLOSE_CODE")
        #expect(JournalLogHandler.fieldName("http-status") == "HTTP_STATUS")
        let metadata = Logger.Metadata.event(.tokenRejected, ["server": "ws://h/***", "http_status": "401"])
        #expect(metadata["event"] == "token_rejected")
        #expect(metadata["http_status"] == "401")
    }
}
