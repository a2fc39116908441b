/// One push as the server sent it, decoded and ready to store.
///
/// The decoder fills `messageID`, `title` and `body` from a JSON object payload; a payload
/// that is not a JSON object keeps all three `nil` and is stored as it came.
public struct Push: Sendable, Equatable {
    /// The frame's content: text frames and valid UTF-8 binary frames are `.text`.
    public enum Payload: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
    }

    public var payload: Payload
    /// The server's id for this push (`id_field`), as a string; `nil` when it had none.
    public var messageID: String?
    public var title: String?
    public var body: String?
    /// Unix time in milliseconds when the frame was received.
    public var receivedAt: Int64

    public init(payload: Payload, messageID: String?, title: String?, body: String?, receivedAt: Int64) {
        self.payload = payload
        self.messageID = messageID
        self.title = title
        self.body = body
        self.receivedAt = receivedAt
    }
}

/// What the store did with one push of a batch.
public enum StoreOutcome: Sendable, Equatable {
    /// Inserted as a new row with this local id.
    case inserted(rowID: Int64)
    /// A row with the same message id already existed; nothing was written.
    case duplicate
}
