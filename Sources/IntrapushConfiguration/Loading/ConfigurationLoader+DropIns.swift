// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

extension ConfigurationLoader {
    /// `<file>.d/*.conf`, each parsed, in lexical (byte) order: what a fleet's configuration tool
    /// or debconf puts beside the administrator's file without editing it. A drop-in that is a
    /// link to /dev/null is masked, as systemd's are; names starting with a dot are skipped.
    /// A missing directory is no drop-in; one that cannot be read is a problem for the daemon and a
    /// warning for the programs beside it, as the file itself is.
    func readDropIns(
        of mainPath: String, purpose: Purpose, problems: inout ProblemCollector, warnings: inout [String]
    ) throws(ConfigurationError) -> [ConfigurationFile] {
        let directory = mainPath + ".d"
        var files: [ConfigurationFile] = []
        for name in Self.dropInNames(in: directory) {
            let path = directory + "/" + name
            if Self.isMasked(path) { continue }
            switch FileReader.readText(atPath: path) {
            case .success(let text):
                let file = ConfigurationFile(path: path, text: text, problems: &problems)
                if let syntaxError = file.syntaxError { throw ConfigurationError(problems: [syntaxError]) }
                files.append(file)
            case .failure(let failure) where purpose != .daemon:
                warnings.append("\(path): cannot read this drop-in (\(failure.reason)); it is left out")
            case .failure(let failure):
                throw ConfigurationError(problems: [
                    ConfigurationProblem(key: nil, file: path, line: nil, message: "cannot read this drop-in: \(failure.reason)"),
                ])
            }
        }
        return files
    }

    /// The `*.conf` names in `directory`, sorted by their bytes; none when it does not exist.
    static func dropInNames(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasSuffix(".conf"), !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// A symbolic link to /dev/null: the administrator masked a drop-in of the same name.
    static func isMasked(_ path: String) -> Bool {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return false }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "/dev/null"
    }
}
