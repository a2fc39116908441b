// SPDX-License-Identifier: Apache-2.0

extension ConfigurationLoader {
    /// The token and a description of its source: `token` (file or environment) wins; else the
    /// file `token_file` names; else `$CREDENTIALS_DIRECTORY/token` under systemd's
    /// `LoadCredential=`; else `/etc/credstore.encrypted/intrapush.token` where the package sealed
    /// it, through systemd-creds (as root); else `/etc/intrapush/token`.
    ///
    /// Problems name the key and the path, never the token itself.
    func resolveToken(reader: inout SettingReader, warnings: inout [String]) -> (Secret, String) {
        if reader.isSet(.token) {
            if reader.isSet(.tokenFile) {
                warnings.append("token_file is ignored because token is set")
            }
            guard let token = reader.string(.token) else { return (Secret(""), "token") }
            let source = if case .environment(let variable) = reader.origin(of: .token) { variable } else { "token" }
            if token.isEmpty { reader.report(.token, "must not be empty") }
            return (Secret(token), source)
        }

        let path: String
        let source: String
        if reader.isSet(.tokenFile) {
            guard let named = reader.string(.tokenFile) else { return (Secret(""), "token_file") }
            guard !named.isEmpty else {
                reader.report(.tokenFile, "must not be empty")
                return (Secret(""), "token_file")
            }
            path = named
            source = "token_file \(path)"
        } else if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            path = "\(directory)/token"
            source = "token_file \(path) (from CREDENTIALS_DIRECTORY)"
        } else if FileReader.exists(defaultSealedTokenFile) {
            // Sealed by the package: the unit decrypts it by itself (and prefers it, as here, to the
            // 0600 file, which the package removes once it sealed); root, here, through systemd-creds.
            let source = "the sealed \(defaultSealedTokenFile) (systemd-creds)"
            switch SealedToken.decrypt(atPath: defaultSealedTokenFile) {
            case .failure(let failure):
                reader.report(.tokenFile, "cannot read the token sealed in \(defaultSealedTokenFile): \(failure.reason); enter it again with dpkg-reconfigure intrapush")
                return (Secret(""), source)
            case .success(let bytes):
                return (token(from: bytes, path: defaultSealedTokenFile, reader: &reader), source)
            }
        } else {
            path = defaultTokenFile
            source = "token_file \(path)"
        }
        return (readToken(atPath: path, reader: &reader), source)
    }

    private func readToken(atPath path: String, reader: inout SettingReader) -> Secret {
        let remedy = reader.isSet(.tokenFile) ? "" : "; set token_file, or token, to say where the token is"
        switch FileReader.readBytes(atPath: path) {
        case .failure(let failure):
            reader.report(.tokenFile, "cannot read the token file \(path): \(failure.reason)\(remedy)")
            return Secret("")
        case .success(let bytes):
            return token(from: bytes, path: path, reader: &reader)
        }
    }

    /// The token's first line, trailing white space (a final newline, a CR) trimmed.
    private func token(from bytes: [UInt8], path: String, reader: inout SettingReader) -> Secret {
        let firstLine = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
            .first ?? []
        guard let line = String(validating: firstLine, as: UTF8.self) else {
            reader.report(.tokenFile, "the token file \(path) is not valid UTF-8 text")
            return Secret("")
        }
        let token = String(line.reversed().drop(while: \.isWhitespace).reversed())
        if token.isEmpty {
            reader.report(.tokenFile, "the token file \(path) is empty; its first line must hold the token")
        }
        return Secret(token)
    }
}
