// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
/// The parts of a `/connect/{client}/{org}/{token}` path, each percent-decoded exactly once, and
/// the host that connects (`Intrapush-Host`).
struct ConnectRoute: Equatable {
    var client: String
    var org: String
    var token: String
    /// `Intrapush-Host`; `nil` when the client sent none (protocol 1.1 and earlier).
    var host: String?

    init(client: String, org: String, token: String, host: String? = nil) {
        self.client = client
        self.org = org
        self.token = token
        self.host = host
    }

    /// The longest `Intrapush-Host` taken: a host's key is kept for as long as the server runs.
    static let longestHost = 64

    /// Whether `value` can name a host: 1 to 64 of `A–Z a–z 0–9 - . _ ~` (protocol §10).
    static func isValidHost(_ value: String) -> Bool {
        (1...longestHost).contains(value.utf8.count) && value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                true
            default: false
            }
        }
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
    /// `Intrapush-Host` names no host: refused with 400 (S-HOST-7).
    case badHost
    /// A segment of the path is not percent-encoded properly (`%zz`, a `%` at its end): 400
    /// (S-HS-9), never 401 or 403, which the client takes for its token refused.
    case badPercentEncoding

    /// Decides on a request URI (and its `Authorization` header) given the accepted token and an
    /// optional forced rejection. A connect path without a token and without the header is refused
    /// as a wrong token.
    init(uri: String, authorization: String? = nil, host: String? = nil, token: String, forcedRejectionStatus: Int?) {
        let path = RequestTarget(uri: uri).path
        guard var route = ConnectRoute(path: path, authorization: authorization) else {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            if path.hasPrefix("/connect/"), segments.contains(where: { String(percentDecoding: $0) == nil }) {
                self = .badPercentEncoding
            } else {
                self = segments.count == 4 && path.hasPrefix("/connect/") ? .reject(status: 401) : .notFound
            }
            return
        }
        if let forcedRejectionStatus {
            self = .reject(status: forcedRejectionStatus)
        } else if route.token != token {
            self = .reject(status: 401)
        } else if let host, !ConnectRoute.isValidHost(host) {
            self = .badHost
        } else {
            route.host = host
            self = .accept(route)
        }
    }
}
