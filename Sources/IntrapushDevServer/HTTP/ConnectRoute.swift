import IntrapushSupport
/// The parts of a `/connect/{client}/{org}/{token}` path, each percent-decoded exactly once.
struct ConnectRoute: Equatable {
    var client: String
    var org: String
    var token: String

    init(client: String, org: String, token: String) {
        self.client = client
        self.org = org
        self.token = token
    }

    /// Parses a request path; `nil` when it is not a well-formed connect path.
    ///
    /// Segments are split before decoding, so `%2F` stays inside its segment.
    init?(path: Substring) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 5, segments[0].isEmpty, segments[1] == "connect",
            let client = String(percentDecoding: segments[2]),
            let org = String(percentDecoding: segments[3]),
            let token = String(percentDecoding: segments[4]),
            !client.isEmpty, !org.isEmpty, !token.isEmpty
        else { return nil }
        self.client = client
        self.org = org
        self.token = token
    }

    /// Whether a path is meant for connecting, even if malformed, so it can be told apart from 404s.
    static func isConnectPath(_ path: Substring) -> Bool {
        path.hasPrefix("/connect/")
    }
}

/// What the server does with a request for a connect path.
enum Admission: Equatable {
    case accept(ConnectRoute)
    /// Refuse with this HTTP status (401 or 403).
    case reject(status: Int)
    case notFound

    /// Decides on a request URI given the accepted token and an optional forced rejection.
    init(uri: String, token: String, forcedRejectionStatus: Int?) {
        guard let route = ConnectRoute(path: RequestTarget(uri: uri).path) else {
            self = .notFound
            return
        }
        if let forcedRejectionStatus {
            self = .reject(status: forcedRejectionStatus)
        } else if route.token != token {
            self = .reject(status: 401)
        } else {
            self = .accept(route)
        }
    }
}
