// SPDX-License-Identifier: Apache-2.0

/// The calls of `org.freedesktop.Notifications` the agent makes.
extension SessionBus {
    /// Shows a notification; the id the server gave it.
    package func notify(_ notification: DesktopNotification) throws(BusError) -> UInt32 {
        try call(
            destination: Self.notificationsName, path: Self.notificationsPath, interface: Self.notificationsName,
            member: "Notify",
            arguments: { writer in
                writer.append(string: DesktopNotification.applicationName) && writer.append(uint32: 0)
                    && writer.append(string: "") && writer.append(string: notification.summary)
                    && writer.append(string: notification.body)
                    && writer.append(strings: notification.actions.flatMap { [$0.key, $0.label] })
                    && writer.append(hints: [
                        ("urgency", .byte(notification.urgency.rawValue)),
                        ("desktop-entry", .string(notification.desktopEntry)),
                    ])
                    && writer.append(int32: notification.expireTimeout)
            },
            read: { $0.uint32() })
    }

    /// What the server can do (`body-markup`, `actions`, …).
    package func capabilities() throws(BusError) -> Set<String> {
        try call(
            destination: Self.notificationsName, path: Self.notificationsPath, interface: Self.notificationsName,
            member: "GetCapabilities", read: { $0.strings().map(Set.init) })
    }

    /// The server's name and version, for the log.
    package func serverDescription() throws(BusError) -> String {
        try call(
            destination: Self.notificationsName, path: Self.notificationsPath, interface: Self.notificationsName,
            member: "GetServerInformation",
            read: { reader in
                guard let name = reader.string(), let vendor = reader.string(), let version = reader.string() else { return nil }
                return "\(name) \(version) (\(vendor))"
            })
    }
}
