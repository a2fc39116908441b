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

    /// No program owns the name called, and none can be started for it.
    package var isNoServer: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    package var description: String { message }
}
