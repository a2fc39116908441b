// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// One Varlink method call (varlink.org, "Protocol"): a JSON object with `method`, optional
/// `parameters` (an object), and the flags `more`, `oneway` and `upgrade`. The daemon reads
/// it; the CLI and the agent write it.
package struct VarlinkCall: Equatable, Sendable {
    /// The fully qualified name, `io.intrapush.Notifications.List`.
    package var method: String
    package var parameters: [String: JSONValue]
    /// The caller takes a stream: the answer is replies with `continues` until the last.
    package var more: Bool
    /// The caller wants no reply at all.
    package var oneway: Bool
    /// The caller would take over the connection for another protocol; never granted here.
    package var upgrade: Bool

    package init(method: String, parameters: [String: JSONValue] = [:], more: Bool = false, oneway: Bool = false) {
        self.method = method
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
        self.upgrade = false
    }

    /// The interface part of `method` (everything before its last dot).
    package var interface: String {
        guard let dot = method.lastIndex(of: ".") else { return "" }
        return String(method[..<dot])
    }

    /// The method's own name (after the last dot).
    package var member: String {
        guard let dot = method.lastIndex(of: ".") else { return method }
        return String(method[method.index(after: dot)...])
    }

    /// The message's bytes, NUL-terminated as the protocol frames them.
    package var encoded: [UInt8] {
        var members: [String: JSONValue] = ["method": .string(method)]
        if !parameters.isEmpty { members["parameters"] = .object(parameters) }
        if more { members["more"] = .bool(true) }
        if oneway { members["oneway"] = .bool(true) }
        var bytes = Array(JSONValue.object(members).text.utf8)
        bytes.append(0)
        return bytes
    }

    /// Why a message is not a call the daemon can take.
    package enum Malformed: Error, Equatable {
        /// Not one JSON object, or nested too deep.
        case notJSON
        /// An object, but `method`, `parameters` or a flag has the wrong type or is missing.
        case notACall(String)
    }

    /// A call read from one message (without its NUL).
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<VarlinkCall, Malformed> {
        guard let value = JSONValue.parse(bytes), case .object(let members) = value else { return .failure(.notJSON) }
        guard let method = members["method"]?.string, !method.isEmpty, method.utf8.count <= 255 else {
            return .failure(.notACall("a call needs \"method\", a string naming interface and method"))
        }
        var call = VarlinkCall(method: method)
        switch members["parameters"] {
        case nil, .null?: break
        case .object(let parameters)?: call.parameters = parameters
        default: return .failure(.notACall("\"parameters\" must be an object"))
        }
        for (flag, keyPath) in [("more", \VarlinkCall.more), ("oneway", \.oneway), ("upgrade", \.upgrade)] {
            switch members[flag] {
            case nil, .null?: break
            case .bool(let value)?: call[keyPath: keyPath] = value
            default: return .failure(.notACall("\"\(flag)\" must be true or false"))
            }
        }
        return .success(call)
    }

    package static func parse(_ bytes: [UInt8]) -> Result<VarlinkCall, Malformed> {
        bytes.withUnsafeBufferPointer { parse($0) }
    }
}
