/// What one open connection needs to know, taken from the configuration when it is dialled.
public struct SessionSettings: Sendable, Equatable {
    public var heartbeatText: String
    public var ackText: String
    public var heartbeatInterval: Duration
    public var deadPeerTimeout: Duration
    public var maxMessageSize: Int
    public var decoder: PushDecoder

    public init(
        heartbeatText: String, ackText: String, heartbeatInterval: Duration,
        deadPeerTimeout: Duration, maxMessageSize: Int, idField: String
    ) {
        self.heartbeatText = heartbeatText
        self.ackText = ackText
        self.heartbeatInterval = heartbeatInterval
        self.deadPeerTimeout = deadPeerTimeout
        self.maxMessageSize = maxMessageSize
        self.decoder = PushDecoder(idField: idField)
    }

    /// The acknowledgement for a push: `ack_text` with `{id}` replaced by its id (empty without one).
    public func acknowledgement(for messageID: String?) -> String {
        guard ackText.contains("{id}") else { return ackText }
        return ackText.replacing("{id}", with: messageID ?? "")
    }
}

