// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
/// A request URI split into its path and its decoded query parameters.
struct RequestTarget: Equatable {
    var path: Substring
    var query: [String: String]

    init(uri: String) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = parts.first ?? ""
        query = [:]
        guard parts.count == 2 else { return }
        for pair in parts[1].split(separator: "&") {
            let keyAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = String(percentDecoding: keyAndValue[0]) else { continue }
            let value = keyAndValue.count == 2 ? String(percentDecoding: keyAndValue[1]) : ""
            query[key] = value
        }
    }
}
