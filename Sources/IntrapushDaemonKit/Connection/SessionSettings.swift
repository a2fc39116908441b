/// What one open connection needs to know, taken from the configuration when it is dialled.
package struct SessionSettings: Sendable, Equatable {
    package var heartbeatText: String
    package var ackText: String {
        didSet { isAcknowledgementFixed = !ackText.contains("{id}") }
    }
    /// `ack_text` has no `{id}`: every acknowledgement is the same text (the default).
    package private(set) var isAcknowledgementFixed: Bool
    package var heartbeatInterval: Duration
    package var deadPeerTimeout: Duration
    package var maxMessageSize: Int
    package var decoder: PushDecoder
    /// The first frame of every connection (`hello_text` with the real token); `nil` sends none.
    package var helloText: String?

    package init(
        heartbeatText: String, ackText: String, heartbeatInterval: Duration,
        deadPeerTimeout: Duration, maxMessageSize: Int, idField: String, helloText: String? = nil
    ) {
        self.heartbeatText = heartbeatText
        self.ackText = ackText
        self.isAcknowledgementFixed = !ackText.contains("{id}")
        self.heartbeatInterval = heartbeatInterval
        self.deadPeerTimeout = deadPeerTimeout
        self.maxMessageSize = maxMessageSize
        self.decoder = PushDecoder(idField: idField)
        self.helloText = helloText
    }

    /// The acknowledgement for a push: `ack_text` with `{id}` replaced by its id (empty without one).
    package func acknowledgement(for messageID: String?) -> String {
        guard !isAcknowledgementFixed else { return ackText }
        return ackText.replacing("{id}", with: messageID ?? "")
    }
}

