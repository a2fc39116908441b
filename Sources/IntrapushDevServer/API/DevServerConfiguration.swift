/// How a ``DevServer`` listens, which token it accepts and how it treats heartbeats and acknowledgements.
package struct DevServerConfiguration: Sendable {
    /// Where to listen; port 0 asks the system for a free port.
    package var listenAddress: ServerAddress
    /// The only token accepted in `/connect/{client}/{org}/{token}`.
    package var token: String
    /// The org that `POST /push` uses when the request names none.
    package var defaultOrg: String
    /// A text frame from a client that equals this is a heartbeat, not an acknowledgement.
    package var heartbeatText: String
    /// Whether a heartbeat is sent back to the client, as some servers do.
    package var echoesHeartbeats: Bool
    /// The acknowledgement the client sends; `{id}` stands for the push's message id.
    ///
    /// Without `{id}` an acknowledgement carries no id and is matched by position alone.
    package var acknowledgementTemplate: String
    /// A database whose `notifications` table must already hold each acknowledged message id.
    package var verifyDatabasePath: String?
    /// The largest frame accepted from a client.
    package var maximumFrameSize: Int
    /// The server's acknowledgement of a message from a client's outbox; empty: none.
    package var upstreamAcknowledgementTemplate: String
    /// Answer every message from a client with `{"id":…,"echo":…}` (a reply, for tests).
    package var echoesUpstream: Bool
    /// On shutdown, close with 1012 (Service Restart) and `retry-after=N` instead of 1001.
    package var shutdownRetryAfter: Int?

    package init(
        listenAddress: ServerAddress = ServerAddress(host: "127.0.0.1", port: 8080),
        token: String,
        defaultOrg: String = "acme",
        heartbeatText: String = "KA",
        echoesHeartbeats: Bool = false,
        acknowledgementTemplate: String = "received message",
        verifyDatabasePath: String? = nil,
        maximumFrameSize: Int = 1 << 20,
        upstreamAcknowledgementTemplate: String = "received message {id}",
        echoesUpstream: Bool = false,
        shutdownRetryAfter: Int? = nil
    ) {
        self.shutdownRetryAfter = shutdownRetryAfter
        self.listenAddress = listenAddress
        self.token = token
        self.defaultOrg = defaultOrg
        self.heartbeatText = heartbeatText
        self.echoesHeartbeats = echoesHeartbeats
        self.acknowledgementTemplate = acknowledgementTemplate
        self.verifyDatabasePath = verifyDatabasePath
        self.maximumFrameSize = maximumFrameSize
        self.upstreamAcknowledgementTemplate = upstreamAcknowledgementTemplate
        self.echoesUpstream = echoesUpstream
    }
}
