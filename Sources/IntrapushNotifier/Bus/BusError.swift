// SPDX-License-Identifier: Apache-2.0

/// A session-bus call or set-up that failed, in the bus's own words.
package struct BusError: Error, Equatable, CustomStringConvertible {
    /// The D-Bus error name (`org.freedesktop.DBus.Error.ServiceUnknown`), or `nil` for a local
    /// failure such as an unreachable bus.
    package var name: String?
    package var message: String

    package init(name: String?, message: String) {
        self.name = name
        self.message = message
    }

    /// The call did not reach a working server: nothing owns the name, starting one failed (a
    /// notification server activated outside a graphical session, say), no reply came, or the
    /// connection broke. Then what was not shown waits for a server to appear, rather than being
    /// passed over. Only the server's own refusal (its own error name, or bad arguments) is not.
    package var isNoServer: Bool {
        guard let name else { return true }
        return name.hasPrefix("org.freedesktop.DBus.Error.") && name != "org.freedesktop.DBus.Error.InvalidArgs"
    }

    package var description: String { message }
}
