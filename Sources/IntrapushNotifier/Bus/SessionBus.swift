// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import CSystemd

/// The agent's connection to the session bus, through libsystemd's sd-bus: the bus of
/// `DBUS_SESSION_BUS_ADDRESS` (else `$XDG_RUNTIME_DIR/bus`).
///
/// Not thread-safe: one thread calls, polls and processes. Signals heard while processing are
/// queued in `takeSignals()` rather than handled inside sd-bus's callback.
package final class SessionBus {
    private let bus: OpaquePointer
    private var received: [BusSignal] = []
    /// The unique name that owns `org.freedesktop.Notifications`, so that only its signals count.
    private(set) var notificationServer: String?

    package static let notificationsName = "org.freedesktop.Notifications"
    static let notificationsPath = "/org/freedesktop/Notifications"

    private init(bus: OpaquePointer) {
        self.bus = bus
    }

    deinit {
        sd_bus_flush_close_unref(bus)
    }

    /// Connects to the user's session bus.
    package static func connect() throws(BusError) -> SessionBus {
        var bus: OpaquePointer?
        let result = sd_bus_open_user(&bus)
        guard result >= 0, let bus else {
            throw BusError(name: nil, message: "cannot reach the session bus: \(String(cString: strerror(-result)))")
        }
        return SessionBus(bus: bus)
    }

    /// Takes `name` for this connection; `false` when another connection holds it.
    package func requestName(_ name: String) throws(BusError) -> Bool {
        let result = sd_bus_request_name(bus, name, 0)
        if result == -EEXIST || result == -EALREADY { return result == -EALREADY }
        guard result >= 0 else { throw BusError(name: nil, message: "cannot take the bus name \(name): \(String(cString: strerror(-result)))") }
        return true
    }

    // MARK: Polling

    /// The descriptor to poll, and the events sd-bus waits for on it now.
    package var pollDescriptor: (descriptor: Int32, events: Int16) {
        (sd_bus_get_fd(bus), Int16(truncatingIfNeeded: max(0, sd_bus_get_events(bus))))
    }

    /// Milliseconds until sd-bus has something to do without input (a call's timeout); `nil`
    /// when nothing is pending, which is the idle case: no timer at all.
    package func timeoutMilliseconds() -> Int32? {
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > nowMicroseconds else { return 0 }
        return Int32(clamping: (deadline - nowMicroseconds + 999) / 1000)
    }

    /// Handles everything that has arrived; the signals among it wait in `takeSignals()`.
    package func process() throws(BusError) {
        while true {
            let result = sd_bus_process(bus, nil)
            guard result >= 0 else {
                throw BusError(name: nil, message: "the session bus connection failed: \(String(cString: strerror(-result)))")
            }
            if result == 0 { return }
        }
    }

    package func takeSignals() -> [BusSignal] {
        defer { received.removeAll() }
        return received
    }

    // MARK: Signals

    /// Listens for the notification server's signals and for it coming and going.
    package func watchNotificationServer() throws(BusError) {
        let rules = [
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.notificationsName)'",
            "type='signal',interface='\(Self.notificationsName)',path='\(Self.notificationsPath)',member='ActionInvoked'",
            "type='signal',interface='\(Self.notificationsName)',path='\(Self.notificationsPath)',member='NotificationClosed'",
        ]
        let context = Unmanaged.passUnretained(self).toOpaque()
        for rule in rules {
            let result = sd_bus_add_match(bus, nil, rule, { message, context, _ in
                guard let message, let context else { return 0 }
                Unmanaged<SessionBus>.fromOpaque(context).takeUnretainedValue().heard(message)
                return 0
            }, context)
            guard result >= 0 else {
                throw BusError(name: nil, message: "cannot listen on the session bus: \(String(cString: strerror(-result)))")
            }
        }
        notificationServer = try? nameOwner(Self.notificationsName)
    }

    private func heard(_ message: OpaquePointer) {
        guard let memberPointer = sd_bus_message_get_member(message) else { return }
        let member = String(cString: memberPointer)
        var reader = BusMessageReader(message: message)
        if member == "NameOwnerChanged" {
            guard let name = reader.string(), name == Self.notificationsName, reader.string() != nil,
                let newOwner = reader.string()
            else { return }
            notificationServer = newOwner.isEmpty ? nil : newOwner
            received.append(.notificationServerChanged(newOwner: newOwner))
            return
        }
        // Anyone on the bus may send a signal with this interface; only the server's count.
        guard let sender = sd_bus_message_get_sender(message).map({ String(cString: $0) }),
            sender == notificationServer
        else { return }
        switch member {
        case "ActionInvoked":
            if let id = reader.uint32(), let action = reader.string() {
                received.append(.actionInvoked(notificationID: id, action: action))
            }
        case "NotificationClosed":
            if let id = reader.uint32(), let reason = reader.uint32() {
                received.append(.notificationClosed(notificationID: id, reason: reason))
            }
        default:
            break
        }
    }

    // MARK: Calls

    /// Calls a method and hands its reply to `read`; the call's error otherwise.
    func call<Result>(
        destination: String, path: String, interface: String, member: String,
        timeout: Duration = .seconds(10),
        arguments: (inout BusMessageWriter) -> Bool = { _ in true },
        read: (inout BusMessageReader) -> Result?
    ) throws(BusError) -> Result {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw BusError(name: nil, message: "cannot make a bus call: \(String(cString: strerror(-result)))") }
        defer { sd_bus_message_unref(message) }
        var writer = BusMessageWriter(message: message)
        guard arguments(&writer) else { throw BusError(name: nil, message: "cannot write the arguments of \(member)") }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let microseconds = UInt64(timeout.components.seconds) * 1_000_000
        result = sd_bus_call(bus, message, microseconds, &error, &reply)
        guard result >= 0, let reply else {
            let name = error.name.map { String(cString: $0) }
            let text = error.message.map { String(cString: $0) } ?? String(cString: strerror(-result))
            throw BusError(name: name, message: text)
        }
        defer { sd_bus_message_unref(reply) }
        var reader = BusMessageReader(message: reply)
        guard let value = read(&reader) else { throw BusError(name: nil, message: "\(member) answered with something unexpected") }
        return value
    }

    /// The unique name owning `name`; throws when none does.
    func nameOwner(_ name: String) throws(BusError) -> String {
        try call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: { $0.append(string: name) }, read: { $0.string() })
    }
}
