// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// `metrics_listen` and `metrics_file` (contract §8).
extension ConfigurationLoader {
    /// Empty is unset, so that `INTRAPUSH_METRICS_LISTEN=` turns off what the file sets.
    func metricsListen(reader: inout SettingReader) -> ListenAddress? {
        guard let text = reader.string(.metricsListen), !text.isEmpty else { return nil }
        switch ListenAddress.parse(text) {
        case .success(let address): return address
        case .failure(let error):
            reader.reject(.metricsListen, error.reason)
            return nil
        }
    }

    /// An absolute path whose directory exists (checked for the daemon, which writes it).
    func metricsFile(reader: inout SettingReader, purpose: Purpose) -> String? {
        guard let path = reader.string(.metricsFile), !path.isEmpty else { return nil }
        guard path.hasPrefix("/"), !path.hasSuffix("/") else {
            reader.reject(.metricsFile, "must be an absolute path to a file, like /var/lib/prometheus/node-exporter/intrapush.prom")
            return nil
        }
        guard purpose == .daemon else { return path }
        let directory = String(path[..<path.lastIndex(of: "/")!])
        var status = stat()
        if stat(directory.isEmpty ? "/" : directory, &status) != 0 {
            reader.report(.metricsFile, "the directory \(directory) does not exist (\(String(cString: strerror(errno))))")
        } else if status.st_mode & S_IFMT != S_IFDIR {
            reader.report(.metricsFile, "\(directory) is not a directory")
        }
        return path
    }
}
