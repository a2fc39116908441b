// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushNotifier
import IntrapushStore
import Testing

@Suite struct NotifierMachineTests {
    func record(_ id: Int64, link: String? = nil) -> NotificationRecord {
        NotificationRecord(id: id, messageID: "m\(id)", receivedAt: 0, payload: "{}", title: "t\(id)", body: nil, readAt: nil, link: link)
    }

    func shows(_ actions: [NotifierMachine.Action]) -> [NotifierMachine.Showing] {
        actions.compactMap { if case .show(let showing) = $0 { showing } else { nil } }
    }

    func machine(catchUp: Int = 3, dismiss: Bool = false, cursor: NotifierCursor = NotifierCursor()) -> NotifierMachine {
        NotifierMachine(settings: .init(catchUp: catchUp, markReadOnDismiss: dismiss), cursor: cursor)
    }

    @Test func startLearnsTheServerAndLooksAfterTheCursor() {
        var machine = machine(cursor: NotifierCursor(lastShownID: 9, unsentReads: [4]))
        #expect(machine.started() == [.learnCapabilities, .markRead([4]), .scan(after: 9)])
    }

    @Test func aBurstIsTheNewestFewAndOneSummary() {
        var machine = machine()
        let batch = UnreadBatch(newest: [record(8), record(9), record(10)], summarized: 7, through: 12)
        let shown = shows(machine.unreadFound(batch))
        #expect(shown.map(\.recordID) == [nil, 8, 9, 10])
        #expect(shown[0].notification.summary == "7 more unread")
        // Each one on screen moves the cursor: past the summarized ones, then to each, then past
        // the rows this person does not see.
        #expect(shown.map(\.cursorAfter) == [7, 8, 9, 12])
        #expect(machine.shown(shown[0], notificationID: 1) == [.saveCursor(NotifierCursor(lastShownID: 7))])
        #expect(machine.cursor.lastShownID == 7)
    }

    @Test func noFloodWhenCatchUpIsZero() {
        var machine = machine(catchUp: 0)
        let shown = shows(machine.unreadFound(UnreadBatch(newest: [], summarized: 40, through: 50)))
        #expect(shown.count == 1)
        #expect(shown[0].cursorAfter == 50)
    }

    @Test func nothingToShowStillMovesTheCursor() {
        var machine = machine()
        #expect(machine.unreadFound(UnreadBatch(newest: [], summarized: 0, through: 5))
            == [.saveCursor(NotifierCursor(lastShownID: 5))])
        #expect(machine.unreadFound(UnreadBatch(newest: [], summarized: 0, through: 5)) == [])
    }

    @Test func aMissingServerKeepsTheCursorAndWaitsForTheNextOne() {
        var machine = machine(cursor: NotifierCursor(lastShownID: 3))
        let shown = shows(machine.unreadFound(UnreadBatch(newest: [record(4), record(5)], summarized: 0, through: 5)))
        #expect(machine.showFailed(shown[0], noServer: true) == [])
        #expect(!machine.isServerPresent)
        #expect(machine.cursor.lastShownID == 3)
        #expect(machine.databaseChanged() == [])
        #expect(machine.heard(.notificationServerChanged(newOwner: ":1.9"))
            == [.learnCapabilities, .scan(after: 3)])
    }

    @Test func aRefusedNotificationIsPassedOver() {
        var machine = machine(cursor: NotifierCursor(lastShownID: 3))
        let shown = shows(machine.unreadFound(UnreadBatch(newest: [record(4)], summarized: 0, through: 4)))
        #expect(machine.showFailed(shown[0], noServer: false) == [.saveCursor(NotifierCursor(lastShownID: 4))])
        #expect(machine.isServerPresent)
    }

    @Test func markReadAndOpen() {
        var machine = machine()
        let shown = shows(machine.unreadFound(UnreadBatch(
            newest: [record(1), record(2, link: "https://x"), record(3, link: "file:///etc/shadow")], summarized: 0, through: 3)))
        _ = machine.shown(shown[0], notificationID: 11)
        _ = machine.shown(shown[1], notificationID: 12)
        _ = machine.shown(shown[2], notificationID: 13)
        #expect(machine.heard(.actionInvoked(notificationID: 11, action: "mark-read")) == [.markRead([1])])
        // Once acted on, it is no longer ours to act on again.
        #expect(machine.heard(.actionInvoked(notificationID: 11, action: "mark-read")) == [])
        #expect(machine.heard(.actionInvoked(notificationID: 12, action: "default")) == [.openLink("https://x"), .markRead([2])])
        #expect(machine.heard(.actionInvoked(notificationID: 13, action: "default")) == [.markRead([3])])
        #expect(machine.heard(.actionInvoked(notificationID: 99, action: "mark-read")) == [])
    }

    @Test(arguments: [(UInt32(2), true, true), (2, false, false), (1, true, false), (3, true, false)])
    func dismissal(reason: UInt32, markReadOnDismiss: Bool, marks: Bool) {
        var machine = machine(dismiss: markReadOnDismiss)
        let shown = shows(machine.unreadFound(UnreadBatch(newest: [record(1)], summarized: 0, through: 1)))
        _ = machine.shown(shown[0], notificationID: 5)
        #expect(machine.heard(.notificationClosed(notificationID: 5, reason: reason)) == (marks ? [.markRead([1])] : []))
    }

    @Test func marksWaitForTheDaemonAndAreNotLost() {
        var machine = machine()
        #expect(machine.markReadFinished(ids: [1, 2], reachedDaemon: false)
            == [.saveCursor(NotifierCursor(unsentReads: [1, 2]))])
        #expect(machine.markReadFinished(ids: [2, 3], reachedDaemon: false)
            == [.saveCursor(NotifierCursor(unsentReads: [1, 2, 3]))])
        #expect(machine.databaseChanged() == [.markRead([1, 2, 3]), .scan(after: 0)])
        #expect(machine.markReadFinished(ids: [1, 2, 3], reachedDaemon: true) == [.saveCursor(NotifierCursor())])
        #expect(machine.databaseChanged() == [.scan(after: 0)])
    }

    @Test func aNewServerForgetsTheOldOnesNotifications() {
        var machine = machine()
        let shown = shows(machine.unreadFound(UnreadBatch(newest: [record(1)], summarized: 0, through: 1)))
        _ = machine.shown(shown[0], notificationID: 1)
        _ = machine.heard(.notificationServerChanged(newOwner: ""))
        _ = machine.heard(.notificationServerChanged(newOwner: ":1.50"))
        #expect(machine.heard(.actionInvoked(notificationID: 1, action: "mark-read")) == [])
    }

    @Test func cursorFileRoundTripAndAnotherDatabase() {
        let cursor = NotifierCursor(lastShownID: 42, unsentReads: [3, 9])
        let text = cursor.text(database: "/var/lib/intrapush/intrapush.db")
        #expect(NotifierCursor.parse(text, database: "/var/lib/intrapush/intrapush.db") == cursor)
        #expect(NotifierCursor.parse(text, database: "/tmp/other.db") == NotifierCursor())
        #expect(NotifierCursor.parse("garbage\nlast_shown=-5\n", database: "x") == NotifierCursor())
    }
}
