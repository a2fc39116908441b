// SPDX-License-Identifier: Apache-2.0

/// Why the dev server or its client could not do what was asked.
package struct DevServerError: Error, CustomStringConvertible {
    private enum Reason {
        case cannotListen(ServerAddress, any Error)
        case notBound
        case notAConnectPath
        case requestFailed(path: String, status: Int, body: String)
        case connectionClosed(path: String)
        case unreadableTokenFile(path: String, reason: String)
        case upgradeRefused
    }

    private let reason: Reason

    private init(_ reason: Reason) {
        self.reason = reason
    }

    static func cannotListen(on address: ServerAddress, _ error: any Error) -> DevServerError {
        DevServerError(.cannotListen(address, error))
    }

    static let notBound = DevServerError(.notBound)

    /// Names no path: a connect path carries the token.
    static let notAConnectPath = DevServerError(.notAConnectPath)

    static func requestFailed(path: String, status: Int, body: String) -> DevServerError {
        DevServerError(.requestFailed(path: path, status: status, body: body))
    }

    static func connectionClosed(path: String) -> DevServerError {
        DevServerError(.connectionClosed(path: path))
    }

    static func unreadableTokenFile(path: String, reason: String) -> DevServerError {
        DevServerError(.unreadableTokenFile(path: path, reason: reason))
    }

    /// The server answered the WebSocket upgrade with something other than 101; names no path,
    /// since a connect path carries the token.
    static let upgradeRefused = DevServerError(.upgradeRefused)

    package var description: String {
        switch reason {
        case .cannotListen(let address, let error):
            "cannot listen on \(address): \(error); choose another --listen address or free the port"
        case .notBound:
            "the server socket has no local address"
        case .notAConnectPath:
            "the upgraded request is not for /connect/{client}/{org}/{token}"
        case .requestFailed(let path, let status, let body):
            "the dev server answered \(path) with HTTP \(status): \(body)"
        case .connectionClosed(let path):
            "the dev server closed the connection before answering \(path)"
        case .unreadableTokenFile(let path, let reason):
            "cannot read a token from \(path): \(reason); write the token on the file's first line"
        case .upgradeRefused:
            "the server refused the WebSocket upgrade; check the token, the org and that it serves /connect"
        }
    }
}
