#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds the `id` member of a JSON object payload, as the daemon would read it.
enum MessageIDProbe {
    private struct Probe: Decodable {
        var id: Identifier?
    }

    private struct Identifier: Decodable {
        var text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                text = String(number)
            } else if let number = try? container.decode(Double.self) {
                text = String(number)
            } else {
                text = try container.decode(String.self)
            }
        }
    }

    /// The payload's `id` as a string; `nil` when it is not a JSON object or has no usable id.
    static func messageID(in payload: [UInt8]) -> String? {
        guard payload.first(where: { !Self.isWhiteSpace($0) }) == UInt8(ascii: "{") else { return nil }
        return (try? JSONDecoder().decode(Probe.self, from: Data(payload)))?.id?.text
    }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
