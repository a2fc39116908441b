// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// `tls_cert_file` / `tls_key_file` (contract §8).
extension ConfigurationLoader {
    /// Both or neither; the key defaults to the unit's credential `tls_key` when only the
    /// certificate is named. Read here for the daemon (readable, parsed, matching).
    func clientIdentity(reader: inout SettingReader, purpose: Purpose, usesTLS: Bool, warnings: inout [String]) -> ClientIdentity? {
        let certificate = reader.string(.tlsCertFile).flatMap { $0.isEmpty ? nil : $0 }
        var key = reader.string(.tlsKeyFile).flatMap { $0.isEmpty ? nil : $0 }
        if certificate != nil, key == nil, let credentials = environment["CREDENTIALS_DIRECTORY"] {
            let candidate = credentials + "/tls_key"
            if FileReader.checkReadable(atPath: candidate) == nil { key = candidate }
        }
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (nil, _?):
            reader.report(.tlsCertFile, "required when tls_key_file is set: the certificate that goes with the key")
            return nil
        case (_?, nil):
            reader.report(.tlsKeyFile, "required when tls_cert_file is set (or a credential tls_key under the unit: LoadCredential=tls_key:PATH)")
            return nil
        case (let certificate?, let key?):
            if !usesTLS {
                reader.report(.tlsCertFile, "a client certificate needs tls = true")
            }
            guard purpose == .daemon else { return ClientIdentity(certificateFile: certificate, keyFile: key, fingerprint: 0) }
            var contents: [[UInt8]] = []
            for (file, setting) in [(certificate, ConfigurationKey.tlsCertFile), (key, .tlsKeyFile)] {
                switch FileReader.readBytes(atPath: file) {
                case .success(let bytes): contents.append(bytes)
                case .failure(let failure):
                    reader.report(setting, "cannot read \(file): \(failure.reason)")
                    return nil
                }
            }
            // systemd's credentials are 0440 in a directory only the unit's processes may enter:
            // for others they are not to be read.
            let isCredential = environment["CREDENTIALS_DIRECTORY"].map { !$0.isEmpty && key.hasPrefix($0 + "/") } ?? false
            var status = stat()
            if !isCredential, stat(key, &status) == 0, status.st_mode & 0o077 != 0 {
                warnings.append(
                    "tls_key_file \(key) can be read by others (mode \(String(status.st_mode & 0o777, radix: 8))); "
                        + "make it readable by the daemon only, or pass it as the credential tls_key")
            }
            if let check = clientIdentityCheck, let problem = check((certificate, contents[0]), (key, contents[1])) {
                reader.report(problem.culprit == .certificate ? .tlsCertFile : .tlsKeyFile, problem.message)
                return nil
            }
            return ClientIdentity(certificateFile: certificate, keyFile: key, fingerprint: ClientIdentity.fingerprint(of: contents))
        }
    }
}
