// SPDX-License-Identifier: Apache-2.0

/// One call of `org.freedesktop.Notifications.Notify`, as the Desktop Notifications
/// Specification 1.2 has it: what the person sees and may do.
package struct DesktopNotification: Sendable, Equatable {
    /// The `urgency` hint.
    package enum Urgency: UInt8, Sendable {
        case low = 0
        case normal = 1
        case critical = 2
    }

    package struct Action: Sendable, Equatable {
        /// `default` is what clicking the notification itself does.
        package var key: String
        package var label: String
    }

    package var summary: String
    /// Plain text, or with `&`, `<` and `>` escaped when the server reads markup.
    package var body: String
    package var actions: [Action]
    package var urgency: Urgency
    /// The `desktop-entry` hint: the server may show the application's name and icon from it.
    package var desktopEntry: String = "intrapush-notifier"
    /// Milliseconds; -1: the server's default, 0: until the person closes it.
    package var expireTimeout: Int32

    package static let applicationName = "intrapush"

    package static let markReadAction = Action(key: "mark-read", label: "Mark as read")
    package static let openAction = Action(key: "default", label: "Open")
}
