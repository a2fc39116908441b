/// The daemon's settings, one property per key of `intrapush.conf` (README "Configure", intrapush.conf(5)).
///
/// Built by `ConfigurationLoader`, which applies the defaults, the environment overrides and the
/// validation; the initializer's defaults are the documented ones, for tests and tools that build one by
/// hand. Durations are `Duration`, sizes are bytes.
package struct Configuration: Sendable, Equatable {
    /// `name[:port]` or `[v6]:port`, as written.
    package var host: String
    package var org: String
    package var client: String
    /// The credential in the URL; its description is `***`.
    package var token: Secret
    /// Where the token came from, for messages: `token`, `INTRAPUSH_TOKEN`, `token_file /etc/intrapush/token`.
    package var tokenSource: String
    /// `wss` instead of `ws`.
    package var tls: Bool
    /// PEM trust anchors for `wss`; `nil` means the system trust store.
    package var caFile: String?
    /// The URL path with `{client}`, `{org}` and `{token}` placeholders.
    package var pathTemplate: String
    package var heartbeatInterval: Duration
    package var heartbeatText: String
    /// The acknowledgement text; `{id}` becomes the message id.
    package var ackText: String
    /// The JSON member that holds a push's message id.
    package var idField: String
    /// Silence after which the connection counts as dead.
    package var deadPeerTimeout: Duration
    package var connectTimeout: Duration
    package var reconnectMin: Duration
    package var reconnectMax: Duration
    /// The largest frame accepted, in bytes; a larger one closes the connection with 1009.
    package var maxMessageSize: Int
    /// The SQLite file.
    package var database: String
    /// Days a notification is kept; 0 keeps forever.
    package var retentionDays: Int
    /// Rows kept at most; 0 is unlimited.
    package var retentionMaxRows: Int
    /// A command line run for each new notification, as written; the loader accepts only what
    /// `HookCommandLine(parsing:)` accepts, and `hookCommand` is its split form.
    package var onNotification: String?
    package var logLevel: LogLevel
    /// Extra lines for the opening handshake, as written (`{token}` not replaced).
    package var headers: [HandshakeHeader]
    /// Asked for with `Sec-WebSocket-Protocol`; a server that does not select it fails the handshake.
    package var subprotocol: String?
    /// The first frame of every new connection, as written (`{token}` not replaced).
    package var helloText: String?

    package init(
        host: String,
        org: String,
        client: String = Defaults.client,
        token: Secret,
        tokenSource: String = "token",
        tls: Bool = false,
        caFile: String? = nil,
        pathTemplate: String = Defaults.pathTemplate,
        heartbeatInterval: Duration = Defaults.heartbeatInterval,
        heartbeatText: String = Defaults.heartbeatText,
        ackText: String = Defaults.ackText,
        idField: String = Defaults.idField,
        deadPeerTimeout: Duration? = nil,
        connectTimeout: Duration = Defaults.connectTimeout,
        reconnectMin: Duration = Defaults.reconnectMin,
        reconnectMax: Duration = Defaults.reconnectMax,
        maxMessageSize: Int = Defaults.maxMessageSize,
        database: String = Defaults.database,
        retentionDays: Int = Defaults.retentionDays,
        retentionMaxRows: Int = Defaults.retentionMaxRows,
        onNotification: String? = nil,
        logLevel: LogLevel = .info,
        headers: [HandshakeHeader] = [],
        subprotocol: String? = nil,
        helloText: String? = nil
    ) {
        self.host = host
        self.org = org
        self.client = client
        self.token = token
        self.tokenSource = tokenSource
        self.tls = tls
        self.caFile = caFile
        self.pathTemplate = pathTemplate
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatText = heartbeatText
        self.ackText = ackText
        self.idField = idField
        self.deadPeerTimeout = deadPeerTimeout ?? heartbeatInterval * Defaults.deadPeerFactor
        self.connectTimeout = connectTimeout
        self.reconnectMin = reconnectMin
        self.reconnectMax = reconnectMax
        self.maxMessageSize = maxMessageSize
        self.database = database
        self.retentionDays = retentionDays
        self.retentionMaxRows = retentionMaxRows
        self.onNotification = onNotification
        self.logLevel = logLevel
        self.headers = headers
        self.subprotocol = subprotocol
        self.helloText = helloText
    }

    /// `on_notification` split into a program and its arguments; `nil` when unset (or, for a
    /// configuration built by hand, when it does not parse).
    package var hookCommand: HookCommandLine? {
        onNotification.flatMap { try? HookCommandLine(parsing: $0) }
    }
}

extension Configuration {
    /// The documented defaults, in one place. Those that depend on the environment (`database`
    /// under `STATE_DIRECTORY`, `token_file` under `CREDENTIALS_DIRECTORY`) are resolved by the loader.
    package enum Defaults {
        package static let client = "linux"
        package static let pathTemplate = "/connect/{client}/{org}/{token}"
        package static let heartbeatInterval: Duration = .seconds(10)
        package static let heartbeatText = "KA"
        package static let ackText = "received message"
        package static let idField = "id"
        /// `dead_peer_timeout` is this many heartbeat intervals unless set.
        package static let deadPeerFactor = 3
        package static let connectTimeout: Duration = .seconds(10)
        package static let reconnectMin: Duration = .seconds(1)
        package static let reconnectMax: Duration = .seconds(60)
        package static let maxMessageSize = 1_048_576
        package static let database = "/var/lib/intrapush/notifications.sqlite3"
        package static let tokenFile = "/etc/intrapush/token"
        package static let configurationFile = "/etc/intrapush/intrapush.conf"
        package static let retentionDays = 90
        package static let retentionMaxRows = 1_000_000
    }
}
