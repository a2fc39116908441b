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

    /// Parses a request path; `nil` when it is not a well-formed connect path. The token is the
    /// path's last segment, or, on `/connect/{client}/{org}`, the `Authorization: Bearer` header's.
    ///
    /// Segments are split before decoding, so `%2F` stays inside its segment.
    init?(path: Substring, authorization: String? = nil) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 5 || segments.count == 4, segments[0].isEmpty, segments[1] == "connect",
            let client = String(percentDecoding: segments[2]),
            let org = String(percentDecoding: segments[3]),
            let token = segments.count == 5 ? String(percentDecoding: segments[4]) : Self.bearerToken(authorization),
            !client.isEmpty, !org.isEmpty, !token.isEmpty
        else { return nil }
        self.client = client
        self.org = org
        self.token = token
    }

    /// The credentials of `Authorization: Bearer TOKEN`, the scheme's name in any case.
    static func bearerToken(_ header: String?) -> String? {
        guard let header, let space = header.firstIndex(of: " "),
            header[..<space].lowercased() == "bearer"
        else { return nil }
        let token = header[header.index(after: space)...].drop(while: { $0 == " " || $0 == "\t" })
        return String(token.reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
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

    /// Decides on a request URI (and its `Authorization` header) given the accepted token and an
    /// optional forced rejection. A connect path without a token and without the header is refused
    /// as a wrong token.
    init(uri: String, authorization: String? = nil, token: String, forcedRejectionStatus: Int?) {
        let path = RequestTarget(uri: uri).path
        guard let route = ConnectRoute(path: path, authorization: authorization) else {
            let isTokenless = path.split(separator: "/", omittingEmptySubsequences: false).count == 4
            self = isTokenless && path.hasPrefix("/connect/") ? .reject(status: 401) : .notFound
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
