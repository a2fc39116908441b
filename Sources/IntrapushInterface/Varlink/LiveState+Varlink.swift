import IntrapushStore
import IntrapushSupport

/// The `state` object of `io.intrapush.Daemon.Status`: the live state's fields by their
/// `daemon_state` names, whole numbers as numbers and the rest as strings.
extension LiveState {
    package var varlinkValue: JSONValue {
        var members: [String: JSONValue] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
            members[name] = Int64(value).map { JSONValue($0) } ?? .string(value)
        }
        return .object(members)
    }

    /// `nil` when `value` is not such an object.
    package init?(varlinkValue value: JSONValue) {
        guard case .object(let members) = value else { return nil }
        let lines = members.sorted { $0.key < $1.key }.compactMap { name, value -> String? in
            switch value {
            case .number(let text): "\(name)=\(text)"
            case .string(let text): "\(name)=\(text)"
            default: nil
            }
        }
        self.init(text: lines.joined(separator: "\n") + "\n")
    }
}
