// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// One Varlink reply: `parameters`, `continues` while a stream goes on, or `error` with its
/// qualified name (its parameters then say more).
package struct VarlinkReply: Equatable, Sendable {
    package var parameters: [String: JSONValue]
    package var continues: Bool
    package var error: String?

    package init(parameters: [String: JSONValue] = [:], continues: Bool = false, error: String? = nil) {
        self.parameters = parameters
        self.continues = continues
        self.error = error
    }

    /// A method's reply.
    package init(_ reply: some VarlinkStruct, continues: Bool) {
        guard case .object(let members) = reply.varlinkJSON else { preconditionFailure("a struct is written as an object") }
        self.init(parameters: members, continues: continues)
    }

    package static func failure(_ error: VarlinkError) -> VarlinkReply {
        VarlinkReply(parameters: error.parameters, error: error.name)
    }

    /// The reply's bytes, NUL-terminated.
    package var encoded: [UInt8] {
        var members: [String: JSONValue] = ["parameters": .object(parameters)]
        if continues { members["continues"] = .bool(true) }
        if let error { members["error"] = .string(error) }
        var bytes = Array(JSONValue.object(members).text.utf8)
        bytes.append(0)
        return bytes
    }

    /// The reply's bytes, NUL-terminated, written to `output`: the same bytes as `encoded`.
    package func write<Output: JSONOutput>(to output: inout Output) {
        var members: [String: JSONValue] = ["parameters": .object(parameters)]
        if continues { members["continues"] = .bool(true) }
        if let error { members["error"] = .string(error) }
        JSONValue.object(members).write(to: &output)
        output.write(count: 1) { $0.write(0) }
    }

    /// A reply read from one message (without its NUL); `nil` when it is not one.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> VarlinkReply? {
        guard let value = JSONValue.parse(bytes), case .object(let members) = value else { return nil }
        var reply = VarlinkReply()
        switch members["parameters"] {
        case nil, .null?: break
        case .object(let parameters)?: reply.parameters = parameters
        default: return nil
        }
        switch members["continues"] {
        case nil, .null?: break
        case .bool(let continues)?: reply.continues = continues
        default: return nil
        }
        switch members["error"] {
        case nil, .null?: break
        case .string(let name)?: reply.error = name
        default: return nil
        }
        return reply
    }
}

/// A named Varlink error with its parameters, as it travels. The errors a service sends are
/// made from the interfaces' `Failure` enums; every error of ours carries `message`, a sentence
/// for the person at the other end saying what happened and what to do.
package struct VarlinkError: Error, Equatable, Sendable {
    package var name: String
    package var parameters: [String: JSONValue]

    package init(_ name: String, _ parameters: [String: JSONValue] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    package var message: String? { parameters["message"]?.string }

    /// The interface part of the name.
    package var interface: String {
        guard let dot = name.lastIndex(of: ".") else { return "" }
        return String(name[..<dot])
    }
}
