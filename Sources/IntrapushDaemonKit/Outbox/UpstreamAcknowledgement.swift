/// `upstream_ack_text` split around its `{id}`: reads the id out of a server frame without
/// building a string for frames that cannot be an acknowledgement.
struct UpstreamAcknowledgement: Sendable, Equatable {
    let prefix: [UInt8]
    let suffix: [UInt8]

    /// `nil` when the server does not acknowledge (`upstream_ack_text` empty).
    init?(template: String?) {
        guard let template, let range = template.firstRange(of: "{id}") else { return nil }
        prefix = Array(template[..<range.lowerBound].utf8)
        suffix = Array(template[range.upperBound...].utf8)
    }

    /// The id a frame carries when it has the acknowledgement's shape; the caller checks that
    /// a message of ours has that id.
    func messageID(in frame: UnsafeRawBufferPointer) -> String? {
        guard frame.count > prefix.count + suffix.count,
            frame.prefix(prefix.count).elementsEqual(prefix),
            frame.suffix(suffix.count).elementsEqual(suffix)
        else { return nil }
        let id = frame[prefix.count..<(frame.count - suffix.count)]
        return String(validating: id, as: UTF8.self)
    }
}
