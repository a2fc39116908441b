// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// Reads the message id out of an acknowledgement, given the client's `ack_text` template
/// (`FrameTemplate`: a JSON-shaped template carries the id JSON-encoded).
struct AcknowledgementTemplate: Equatable {
    /// What a text frame says as an acknowledgement.
    enum Reading: Equatable {
        /// The template has no `{id}` and the frame is the template: the acknowledgement is
        /// matched by position alone.
        case withoutID
        /// The id it carried; empty for a push that had none.
        case withID(String)
        /// The frame does not have the template's form: it is no acknowledgement at all.
        case notAnAcknowledgement
    }

    private let template: FrameTemplate

    init(_ text: String) {
        template = FrameTemplate(text, placeholder: "{id}")
    }

    func read(_ text: String) -> Reading {
        guard template.hasPlaceholder else { return text == template.text ? .withoutID : .notAnAcknowledgement }
        var text = text
        let id = text.withUTF8 { template.value(in: UnsafeRawBufferPointer($0), allowsEmpty: true) }
        return id.map(Reading.withID) ?? .notAnAcknowledgement
    }
}
