// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface

/// The desktop agent's decisions, without I/O: what to show, what the person's clicks and
/// dismissals mean, when to look at the database again. `NotifierAgent` performs the actions and
/// reports back what happened.
package struct NotifierMachine: Sendable {
    package struct Settings: Sendable, Equatable {
        package var catchUp: Int
        package var markReadOnDismiss: Bool

        package init(catchUp: Int, markReadOnDismiss: Bool) {
            self.catchUp = catchUp
            self.markReadOnDismiss = markReadOnDismiss
        }
    }

    /// One notification to show, and what it stands for.
    package struct Showing: Sendable, Equatable {
        package var notification: DesktopNotification
        /// `nil` for the summary of older unread ones.
        package var recordID: Int64?
        package var link: String?
        /// Where the cursor stands once this is on screen.
        package var cursorAfter: Int64
    }

    package enum Action: Sendable, Equatable {
        /// Look for unread notifications after this id.
        case scan(after: Int64)
        case show(Showing)
        /// Mark read through the daemon, so that its read receipt reaches the server.
        case markRead([Int64])
        case openLink(String)
        case saveCursor(NotifierCursor)
        case learnCapabilities
    }

    package let settings: Settings
    package private(set) var cursor: NotifierCursor
    /// Something owns `org.freedesktop.Notifications` (or can be started for it).
    package private(set) var isServerPresent = true
    private var usesMarkup = false
    /// Our notifications on screen, oldest first, at most `onScreenLimit`.
    private var onScreen: [(notificationID: UInt32, recordID: Int64, link: String?)] = []
    static let onScreenLimit = 1024

    package init(settings: Settings, cursor: NotifierCursor) {
        self.settings = settings
        self.cursor = cursor
    }

    package mutating func started() -> [Action] {
        [.learnCapabilities] + lookAgain()
    }

    package mutating func databaseChanged() -> [Action] {
        lookAgain()
    }

    package mutating func capabilitiesLearned(_ capabilities: Set<String>) -> [Action] {
        usesMarkup = capabilities.contains("body-markup")
        return []
    }

    package mutating func unreadFound(_ batch: UnreadBatch) -> [Action] {
        show(batch)
    }

    package mutating func shown(_ showing: Showing, notificationID: UInt32) -> [Action] {
        if let recordID = showing.recordID {
            onScreen.append((notificationID, recordID, showing.link))
            if onScreen.count > Self.onScreenLimit { onScreen.removeFirst(onScreen.count - Self.onScreenLimit) }
        }
        return advance(to: showing.cursorAfter)
    }

    /// `noServer`: nothing owns the notification service; otherwise it refused this one.
    package mutating func showFailed(_ showing: Showing, noServer: Bool) -> [Action] {
        if noServer {
            // Shown again when a server appears: the cursor stays before it.
            isServerPresent = false
            return []
        }
        return advance(to: showing.cursorAfter)
    }

    package mutating func heard(_ signal: BusSignal) -> [Action] {
        react(to: signal)
    }

    package mutating func markReadFinished(ids: [Int64], reachedDaemon: Bool) -> [Action] {
        let before = cursor.unsentReads
        if reachedDaemon {
            let done = Set(ids)
            cursor.unsentReads.removeAll { done.contains($0) }
        } else {
            let waiting = Set(cursor.unsentReads)
            cursor.unsentReads += ids.filter { !waiting.contains($0) }
            if cursor.unsentReads.count > NotifierCursor.unsentReadsLimit {
                cursor.unsentReads.removeFirst(cursor.unsentReads.count - NotifierCursor.unsentReadsLimit)
            }
        }
        return cursor.unsentReads == before ? [] : [.saveCursor(cursor)]
    }

    /// A change may be the daemon back (marks to hand it) or new rows (to show).
    private func lookAgain() -> [Action] {
        var actions: [Action] = []
        if !cursor.unsentReads.isEmpty { actions.append(.markRead(cursor.unsentReads)) }
        if isServerPresent { actions.append(.scan(after: cursor.lastShownID)) }
        return actions
    }

    private mutating func show(_ batch: UnreadBatch) -> [Action] {
        var actions: [Action] = []
        if batch.summarized > 0 {
            let through = batch.newest.first.map { $0.id - 1 } ?? batch.through
            actions.append(.show(Showing(
                notification: NotificationContent.summary(moreUnread: batch.summarized, markup: usesMarkup),
                recordID: nil, link: nil, cursorAfter: through)))
        }
        for (index, record) in batch.newest.enumerated() {
            let isLast = index == batch.newest.count - 1
            actions.append(.show(Showing(
                notification: NotificationContent.notification(for: record, markup: usesMarkup),
                recordID: record.id, link: record.link.flatMap(NotificationContent.openableLink),
                cursorAfter: isLast ? max(record.id, batch.through) : record.id)))
        }
        if actions.isEmpty, batch.through != cursor.lastShownID { return advance(to: batch.through) }
        return actions
    }

    private mutating func advance(to position: Int64) -> [Action] {
        guard position != cursor.lastShownID else { return [] }
        cursor.lastShownID = position
        return [.saveCursor(cursor)]
    }

    private mutating func react(to signal: BusSignal) -> [Action] {
        switch signal {
        case .notificationServerChanged(let newOwner):
            // The old server's notifications are gone with it, and their ids mean nothing now.
            onScreen.removeAll()
            isServerPresent = !newOwner.isEmpty
            return isServerPresent ? [.learnCapabilities, .scan(after: cursor.lastShownID)] : []
        case .actionInvoked(let notificationID, let action):
            guard let entry = takeOnScreen(notificationID) else { return [] }
            switch action {
            case DesktopNotification.markReadAction.key:
                return [.markRead([entry.recordID])]
            case DesktopNotification.openAction.key:
                // Opening it is reading it.
                return (entry.link.map { [.openLink($0)] } ?? []) + [.markRead([entry.recordID])]
            default:
                return []
            }
        case .notificationClosed(let notificationID, let reason):
            guard let entry = takeOnScreen(notificationID) else { return [] }
            return reason == 2 && settings.markReadOnDismiss ? [.markRead([entry.recordID])] : []
        }
    }

    private mutating func takeOnScreen(_ notificationID: UInt32) -> (recordID: Int64, link: String?)? {
        guard let index = onScreen.firstIndex(where: { $0.notificationID == notificationID }) else { return nil }
        let entry = onScreen.remove(at: index)
        return (entry.recordID, entry.link)
    }
}
