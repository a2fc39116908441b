/// What one open connection needs to know, taken from the configuration when it is dialled.
public struct SessionSettings: Sendable, Equatable {
    public var heartbeatText: String
    public var ackText: String {
        didSet { isAcknowledgementFixed = !ackText.contains("{id}") }
    }
    /// `ack_text` has no `{id}`: every acknowledgement is the same text (the default).
    public private(set) var isAcknowledgementFixed: Bool
    public var heartbeatInterval: Duration
    public var deadPeerTimeout: Duration
    public var maxMessageSize: Int
    public var decoder: PushDecoder
    /// The first frame of every connection (`hello_text` with the real token); `nil` sends none.
    public var helloText: String?

    public init(
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
    public func acknowledgement(for messageID: String?) -> String {
        guard !isAcknowledgementFixed else { return ackText }
        return ackText.replacing("{id}", with: messageID ?? "")
    }
}

