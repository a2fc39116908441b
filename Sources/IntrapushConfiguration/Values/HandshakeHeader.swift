// SPDX-License-Identifier: Apache-2.0

/// One line that `headers` adds to the opening handshake (`"Authorization: Bearer {token}"`).
///
/// `value` is kept as written, `{token}` included; `Configuration.connection` puts the
/// token in only for the request itself.
package struct HandshakeHeader: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Why a `headers` item was refused. Its message never quotes the value, which may be a credential.
    package struct Problem: Error, Equatable {
        package var message: String
    }

    /// Headers the handshake writes itself: a second copy would make the request ambiguous or
    /// announce a body (`Content-Length` on a `GET` is what strict servers refuse).
    static let reservedNames: [String: String] = [
        "host": "the handshake sets it from host",
        "upgrade": "the WebSocket handshake sets it itself",
        "connection": "the WebSocket handshake sets it itself",
        "sec-websocket-key": "the WebSocket handshake sets it itself",
        "sec-websocket-version": "the WebSocket handshake sets it itself",
        "sec-websocket-extensions": "intrapushd negotiates no extensions",
        "sec-websocket-protocol": "set subprotocol instead",
        "content-length": "the handshake is a GET without a body",
        "transfer-encoding": "the handshake is a GET without a body",
        "intrapush-protocol": "intrapushd sends it itself, naming the protocol's version and profile",
        "intrapush-host": "intrapushd sends it itself, naming this host; set host_id to choose the name",
    ]

    /// Parses `Name: value`: a header name as HTTP defines it, a value without line breaks or
    /// control characters (a tab is allowed), white space around the value dropped.
    package static func parse(_ line: String) -> Result<HandshakeHeader, Problem> {
        guard let colon = line.firstIndex(of: ":") else {
            return .failure(Problem(message: #"is not of the form "Name: value""#))
        }
        let name = String(line[..<colon])
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(\.isHTTPTokenCharacter) else {
            return .failure(
                Problem(message: "has no valid header name before the colon (letters, digits and !#$%&'*+-.^_`|~)"))
        }
        if let reason = reservedNames[name.lowercased()] {
            return .failure(Problem(message: "sets \(name), which cannot be set here: \(reason)"))
        }
        let value = String(line[line.index(after: colon)...].trimmingWhitespace())
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || !$0.isControlCharacter }) else {
            return .failure(Problem(message: "(\(name)) has a line break or control character in its value"))
        }
        return .success(HandshakeHeader(name: name, value: value))
    }

    /// The line with `{host}` replaced by the host's identity, then `{token}` by `token` (in that
    /// order, so that a token holding the text `{host}` stays as it is).
    func expanded(token: String, host: String) -> HandshakeHeader {
        HandshakeHeader(name: name, value: value.replacing("{host}", with: host).replacing("{token}", with: token))
    }
}

extension Unicode.Scalar {
    /// RFC 9110 `tchar`: what a header name, or a subprotocol, is made of.
    package var isHTTPTokenCharacter: Bool {
        guard isASCII else { return false }
        return properties.isAlphabetic || ("0"..."9").contains(self) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(self)
    }

    package var isControlCharacter: Bool { value < 0x20 || value == 0x7F }
}
