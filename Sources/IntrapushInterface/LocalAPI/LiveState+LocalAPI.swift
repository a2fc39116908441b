// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import IntrapushSupport

/// `io.intrapush.Daemon`'s `DaemonState`: the live state, field for field, through
/// `LiveState.fields` (whose names are the interface's); only `state` is spelled otherwise, Varlink's
/// names having no hyphen (`waiting_for_network`).
extension LiveState {
    package var localAPIValue: DaemonInterface.DaemonState {
        var members: [String: JSONValue] = [:]
        for field in Self.fields {
            switch field.get(self) {
            case .text(let text): members[field.name] = JSONValue(text)
            case .integer(let integer): members[field.name] = integer.map { JSONValue($0) } ?? .null
            }
        }
        members["state"] = DaemonInterface.DaemonState.State(state).varlinkJSON
        do {
            return try DaemonInterface.DaemonState(varlink: .object(members), at: "", strict: true)
        } catch {
            // The fields and the interface are the same list, of the same types (LiveStateFieldsTests).
            preconditionFailure("LiveState.fields is not io.intrapush.Daemon's DaemonState: \(error.field)")
        }
    }

    package init(_ value: DaemonInterface.DaemonState) {
        self.init(state: value.state.liveState, updatedAt: value.updatedAt)
        guard case .object(let members) = value.varlinkJSON else { return }
        for field in Self.fields where field.name != "state" {
            let member = members[field.name] ?? .null
            field.set(&self, field.kind == .text ? .text(member.string) : .integer(member.integer))
        }
    }
}

extension DaemonInterface.DaemonState.State {
    /// The Varlink name of a state: its hyphens are underscores. A state this build does not know
    /// (which the daemon never is in: LiveStateFieldsTests) is told as connecting.
    package init(_ state: LiveState.State) {
        self = Self(rawValue: state.rawValue.replacing("-", with: "_")) ?? .connecting
    }

    package var liveState: LiveState.State { LiveState.State(rawValue: rawValue.replacing("_", with: "-")) }
}
