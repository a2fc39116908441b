// SPDX-License-Identifier: Apache-2.0

/// The proxy's answer to `CONNECT`, parsed (pure): the status of the first line, once the head
/// (up to the empty line) is complete.
struct ProxyResponseHead: Equatable {
    var status: Int

    /// The head's length and status once `bytes` holds the whole head; nil while it does not.
    /// Throws on something that is not an HTTP response, or a head larger than 16 KiB.
    static func parse(_ bytes: [UInt8]) throws(ProxyTunnelError) -> (head: ProxyResponseHead, length: Int)? {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        guard let range = bytes.firstRange(of: end) else {
            if bytes.count > 16 * 1024 { throw .malformed }
            return nil
        }
        let firstLine = bytes[..<(bytes.firstRange(of: Array("\r\n".utf8))?.lowerBound ?? range.lowerBound)]
        let parts = String(decoding: firstLine, as: UTF8.self).split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status) else {
            throw .malformed
        }
        return (ProxyResponseHead(status: status), range.upperBound)
    }
}

enum ProxyTunnelError: Error, Equatable {
    /// The proxy answered with something other than HTTP.
    case malformed
    /// The proxy refused the tunnel with this status.
    case refused(status: Int)
    /// The proxy sent bytes after its 200 before we said anything through the tunnel.
    case unexpectedData
    /// The proxy closed the connection before answering.
    case closed
}
