// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface

extension NotificationContent {
    /// The notification for a row of the database.
    package static func notification(for record: NotificationRecord, markup: Bool) -> DesktopNotification {
        notification(
            title: record.title, body: record.body, payload: record.payload, priority: record.priority, link: record.link,
            markup: markup)
    }
}
