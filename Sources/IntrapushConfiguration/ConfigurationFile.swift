import TOMLKit

/// The settings one `intrapush.conf` holds, read with TOMLKit and located line by line.
struct ConfigurationFile {
    var path: String
    var settings: [ConfigurationKey: RawSetting] = [:]
    /// A TOML syntax error; after one, nothing else in the file can be trusted.
    var syntaxError: ConfigurationProblem?

    /// Parses `text`; tables and unknown keys go to `problems`.
    init(path: String, text: String, problems: inout ProblemCollector) {
        self.path = path
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch {
            syntaxError = Self.syntaxProblem(error, path: path)
            return
        }
        let locator = KeyLocator(text: text)
        for (name, value) in table {
            if Self.isTable(value) {
                problems.add(
                    ConfigurationProblem(
                        key: name, file: path, line: locator.line(ofTable: name),
                        message: "tables are not supported; intrapush.conf is flat (write key = value lines only)"),
                    concerns: nil)
                continue
            }
            guard let key = ConfigurationKey(rawValue: name) else {
                var message = "unknown key"
                if let suggestion = KeySuggestion.closest(to: name, among: ConfigurationKey.allCases.map(\.rawValue)) {
                    message += "; did you mean \(suggestion)?"
                }
                problems.add(
                    ConfigurationProblem(key: name, file: path, line: locator.line(ofKey: name), message: message),
                    concerns: nil)
                continue
            }
            settings[key] = RawSetting(
                value: Self.rawValue(value), origin: .file(path: path, line: locator.line(ofKey: name)))
        }
    }

    private static func syntaxProblem(_ error: any Error, path: String) -> ConfigurationProblem {
        guard let parseError = error as? TOMLParseError else {
            return ConfigurationProblem(key: nil, file: path, line: nil, message: "not valid TOML: \(error)")
        }
        let position = parseError.source.begin
        return ConfigurationProblem(
            key: nil, file: path, line: position.line > 0 ? position.line : nil,
            message: "not valid TOML: \(parseError.description) (column \(position.column))")
    }

    /// A `[table]` header or a dotted key; an inline `{ … }` table is a value of the wrong type instead.
    private static func isTable(_ value: any TOMLValueConvertible) -> Bool {
        if value.type == .table { return value.table?.inline != true }
        if value.type == .array, let array = value.array {
            return array.contains { $0.type == .table && $0.table?.inline != true }
        }
        return false
    }

    private static func strings(in value: any TOMLValueConvertible) -> RawSetting.Value? {
        guard let array = value.array else { return nil }
        var strings: [String] = []
        for element in array {
            guard let string = element.string else { return nil }
            strings.append(string)
        }
        return .strings(strings)
    }

    private static func rawValue(_ value: any TOMLValueConvertible) -> RawSetting.Value {
        switch value.type {
        case .string: .string(value.string ?? "")
        case .int: .integer(value.int ?? 0)
        case .double: .double(value.double ?? 0)
        case .bool: .bool(value.bool ?? false)
        case .array: strings(in: value) ?? .other(typeName: "an array of other values than strings")
        case .table: .other(typeName: "a table")
        case .date, .time, .dateTime: .other(typeName: "a \(value.type)")
        }
    }
}
