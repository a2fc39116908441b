// SPDX-License-Identifier: Apache-2.0

import NIOHTTP1

/// A JSON answer of the HTTP API.
struct APIResponse {
    var status: HTTPResponseStatus
    /// The JSON document sent as the body.
    var body: String
    /// More response headers (`Retry-After`).
    var headers: [(String, String)] = []

    static func json(_ status: HTTPResponseStatus, _ body: String) -> APIResponse {
        APIResponse(status: status, body: body)
    }

    static func error(_ status: HTTPResponseStatus, _ message: String) -> APIResponse {
        APIResponse(status: status, body: #"{"error":"# + JSONText.quoted(message) + "}")
    }
}

/// Writing JSON strings by hand, for small answers and generated payloads.
enum JSONText {
    /// The text as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        "\"" + escaped(text) + "\""
    }

    /// Escapes what JSON requires inside a string.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
