// SPDX-License-Identifier: Apache-2.0

/// How a ``DevServer`` listens, which token it accepts, and the clients' settings that shape the
/// wire (their templates, hello and members), which it must know to keep the protocol's server side.
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
    /// The hello the clients send as their first frame (`hello_text`, `{token}` standing for the
    /// token); `nil`: none. With one, nothing is delivered to a connection before its hello, and a
    /// connection whose first frame is another closes with 1008.
    package var helloText: String?
    /// The member of a push that is its id (`id_field`): acknowledgements with `{id}` are checked
    /// against it, and `--verify-database` looks it up.
    package var idField: String
    /// The member of a client's message that is its id (`upstream_id_field`).
    package var upstreamIDField: String
    /// The member of a reply that names its request (`reply_to_field`): `upstreamIDField` unless set.
    package var replyToField: String {
        get { explicitReplyToField ?? upstreamIDField }
        set { explicitReplyToField = newValue }
    }
    private var explicitReplyToField: String?
    /// A connection from which nothing at all (no frame, no ping) came for this long is dropped;
    /// `nil`: never. Three heartbeat intervals of the client's default.
    package var idleTimeout: Duration?
    /// How long a close waits for the acknowledgements of what was sent on the connection.
    package var closeDrainTimeout: Duration
    /// With a hello to expect, how long a connection may go without it before it is closed with
    /// 1008 (S-HELLO-4): as long as the client waits for the upgrade's answer.
    package var helloTimeout: Duration

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
        shutdownRetryAfter: Int? = nil,
        helloText: String? = nil,
        idField: String = "id",
        upstreamIDField: String = "id",
        replyToField: String? = nil,
        idleTimeout: Duration? = .seconds(30),
        closeDrainTimeout: Duration = .seconds(5),
        helloTimeout: Duration = .seconds(10)
    ) {
        self.helloTimeout = helloTimeout
        self.helloText = helloText
        self.idField = idField
        self.upstreamIDField = upstreamIDField
        self.explicitReplyToField = replyToField
        self.idleTimeout = idleTimeout
        self.closeDrainTimeout = closeDrainTimeout
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
