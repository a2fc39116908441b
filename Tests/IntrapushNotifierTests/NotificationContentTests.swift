// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushNotifier
import IntrapushStore
import Testing

@Suite struct NotificationContentTests {
    func record(
        title: String? = nil, body: String? = nil, payload: String = "{}", priority: NotificationPriority? = nil,
        link: String? = nil
    ) -> NotificationRecord {
        NotificationRecord(
            id: 7, messageID: "m7", receivedAt: 0, payload: payload, title: title, body: body, readAt: nil,
            priority: priority, link: link)
    }

    @Test func titleAndBody() {
        let shown = NotificationContent.notification(for: record(title: "Disk", body: "almost full"), markup: false)
        #expect(shown.summary == "Disk")
        #expect(shown.body == "almost full")
        #expect(shown.actions == [DesktopNotification.markReadAction])
        #expect(shown.urgency == .normal)
        #expect(shown.expireTimeout == -1)
    }

    @Test func firstLineOfBodyWithoutTitle() {
        let shown = NotificationContent.notification(for: record(body: "\n  Backup done \nall 3 volumes\nin 2 min"), markup: false)
        #expect(shown.summary == "Backup done")
        #expect(shown.body == "all 3 volumes\nin 2 min")
    }

    @Test func markupEscapedOnlyWhenTheServerReadsIt() {
        let text = "a < b & c > d <b>bold</b>"
        #expect(NotificationContent.notification(for: record(title: "t", body: text), markup: true).body
            == "a &lt; b &amp; c &gt; d &lt;b&gt;bold&lt;/b&gt;")
        #expect(NotificationContent.notification(for: record(title: "t", body: text), markup: false).body == text)
    }

    @Test("a markup character followed by a combining mark is escaped too: it is one character to Swift, not to the server")
    func markupBeforeCombiningMark() {
        let text = "<\u{301}b>x</b\u{301}>&\u{301}"
        #expect(NotificationContent.notification(for: record(title: "t", body: text), markup: true).body
            == "&lt;\u{301}b&gt;x&lt;/b\u{301}&gt;&amp;\u{301}")
    }

    @Test(arguments: [
        (NotificationPriority.minimum, DesktopNotification.Urgency.low), (.low, .low), (.normal, .normal),
        (.high, .critical), (.urgent, .critical),
    ])
    func urgencyFromPriority(priority: NotificationPriority, urgency: DesktopNotification.Urgency) {
        let shown = NotificationContent.notification(for: record(title: "t", priority: priority), markup: false)
        #expect(shown.urgency == urgency)
        #expect(shown.expireTimeout == (urgency == .critical ? 0 : -1))
    }

    @Test func onlyWebAndMailLinksOpen() {
        for link in ["https://intra.example/x", "HTTP://a", "mailto:ops@example"] {
            #expect(NotificationContent.openableLink(link) == link)
            #expect(NotificationContent.notification(for: record(title: "t", link: link), markup: false).actions.first
                == DesktopNotification.openAction)
        }
        for link in ["file:///etc/passwd", "javascript:alert(1)", "/usr/share/applications/x.desktop", "https://", "https://a b",
            "https://a\nb", "--help", "smb://share"]
        {
            #expect(NotificationContent.openableLink(link) == nil)
            #expect(NotificationContent.notification(for: record(title: "t", link: link), markup: false).actions
                == [DesktopNotification.markReadAction])
        }
    }

    @Test func ceilingsAndNul() {
        let shown = NotificationContent.notification(for: record(title: String(repeating: "é", count: 1000), body: "a\0b"), markup: false)
        #expect(shown.summary.utf8.count <= 256)
        #expect(shown.summary.hasSuffix("…"))
        #expect(shown.body == "a\u{FFFD}b")
        let long = NotificationContent.notification(for: record(title: "t", body: String(repeating: "x", count: 100_000)), markup: true)
        #expect(long.body.utf8.count <= 4096)
    }

    @Test func payloadWhenNotJSON() {
        let shown = NotificationContent.notification(for: record(payload: "plain text push"), markup: false)
        #expect(shown.summary == "plain text push")
        #expect(shown.body == "")
    }

    @Test func summaryOfTheRest() {
        let shown = NotificationContent.summary(moreUnread: 12, markup: false)
        #expect(shown.summary == "12 more unread")
        #expect(shown.body.contains("intrapush list --unread"))
        #expect(shown.actions.isEmpty)
    }
}

@Suite struct BusErrorTests {
    /// What waits for a server and what is passed over: a notification must not be lost because
    /// the server could not be started, nor block the rest because the server refused it.
    @Test func noServerOrRefusal() {
        for name in [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.Spawn.ChildSignaled", "org.freedesktop.DBus.Error.NoReply",
            "org.freedesktop.DBus.Error.Timeout", nil,
        ] {
            #expect(BusError(name: name, message: "").isNoServer, "\(name ?? "a local failure")")
        }
        for name in ["org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.Notifications.Error.Refused", "org.example.Oops"] {
            #expect(!BusError(name: name, message: "").isNoServer, "\(name)")
        }
    }
}
