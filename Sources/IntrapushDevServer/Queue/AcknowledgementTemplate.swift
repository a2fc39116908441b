/// Reads the message id out of an acknowledgement, given the client's `ack_text` template.
struct AcknowledgementTemplate: Equatable {
    /// What an acknowledgement frame says about the push it acknowledges.
    enum Reading: Equatable {
        /// The template has no `{id}` and the frame is the template: the acknowledgement is
        /// matched by position alone.
        case withoutID
        /// The id it carried; empty for a push that had none.
        case withID(String)
        /// The frame is not the template's text (without `{id}`) or shape (with it).
        case malformed
    }

    private let prefix: String
    private let suffix: String
    private let hasID: Bool

    init(_ template: String) {
        if let placeholder = template.firstRange(of: "{id}") {
            prefix = String(template[..<placeholder.lowerBound])
            suffix = String(template[placeholder.upperBound...])
            hasID = true
        } else {
            prefix = template
            suffix = ""
            hasID = false
        }
    }

    func read(_ text: String) -> Reading {
        guard hasID else { return text == prefix ? .withoutID : .malformed }
        guard text.utf8.count >= prefix.utf8.count + suffix.utf8.count,
            text.hasPrefix(prefix), text.hasSuffix(suffix)
        else { return .malformed }
        return .withID(String(text.dropFirst(prefix.count).dropLast(suffix.count)))
    }
}
