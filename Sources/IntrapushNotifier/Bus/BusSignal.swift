// SPDX-License-Identifier: Apache-2.0

/// What the agent listens for on the session bus.
package enum BusSignal: Sendable, Equatable {
    /// The person chose an action of a notification (`ActionInvoked`).
    case actionInvoked(notificationID: UInt32, action: String)
    /// A notification went away (`NotificationClosed`): 1 expired, 2 dismissed by the person,
    /// 3 closed by a call, 4 undefined.
    case notificationClosed(notificationID: UInt32, reason: UInt32)
    /// `org.freedesktop.Notifications` changed hands: `newOwner` is empty when it went away.
    case notificationServerChanged(newOwner: String)
}
