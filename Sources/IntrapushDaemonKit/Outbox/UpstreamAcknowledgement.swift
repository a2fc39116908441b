// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// `upstream_ack_text` read back: the id out of a server frame of its form, decoded as the
/// template's shape says (the content of a JSON string unescaped in a JSON-shaped template, the
/// text as it is otherwise), without building a string for frames that cannot be one.
struct UpstreamAcknowledgement: Sendable, Equatable {
    let template: FrameTemplate

    /// `nil` when the server does not acknowledge (`upstream_ack_text` empty).
    init?(template: String?) {
        guard let template else { return nil }
        self.template = FrameTemplate(template, placeholder: "{id}")
        guard self.template.slots.count == 1 else { return nil }
    }

    /// The id a frame carries when it has the acknowledgement's form; the caller checks that a
    /// message of ours has that id.
    func messageID(in frame: UnsafeRawBufferPointer) -> String? {
        template.value(in: frame)
    }
}
