// SPDX-License-Identifier: Apache-2.0

/// The daemon's settings, one property per key of `intrapush.conf` (intrapush.conf(5); docs/operating.md, "Configure").
///
/// Built by `ConfigurationLoader`, which applies the defaults, the environment overrides and the
/// validation; the initializer's defaults are the documented ones, for tests and tools that build one by
/// hand. Durations are `Duration`, sizes are bytes.
package struct Configuration: Sendable, Equatable {
    /// Every server, `name[:port]` or `[v6]:port` as written, in order: the first is the primary,
    /// the others are tried in turn when it cannot be reached (`host` may be a list).
    package var hosts: [String]
    /// The primary server.
    package var host: String {
        get { hosts.first ?? "" }
        set { if hosts.isEmpty { hosts = [newValue] } else { hosts[0] = newValue } }
    }
    /// While on another server, how often the primary is tried again; `nil`: never.
    package var failbackInterval: Duration?
    package var org: String
    package var client: String
    /// Which host of the fleet this is (`host_id`, else derived from the machine id); `nil` when
    /// unknown: a loader given no way to derive one (the CLI, the agent, tests).
    package var hostIdentity: HostIdentity?
    /// The credential in the URL; its description is `***`.
    package var token: Secret
    /// Where the token came from, for messages: `token`, `INTRAPUSH_TOKEN`, `token_file /etc/intrapush/token`.
    package var tokenSource: String
    /// `wss` instead of `ws`.
    package var tls: Bool
    /// PEM trust anchors for `wss`; `nil` means the system trust store.
    package var caFile: String?
    /// The certificate and key shown to a server that asks (mutual TLS); `nil`: none.
    package var clientIdentity: ClientIdentity?
    /// `tls_pins`: the base64 SHA-256 digests of the server keys accepted, `[]` when unset.
    package var tlsPins: [String]
    /// The HTTP proxy the connection tunnels through (`proxy`, or the environment's); `nil`: direct.
    package var proxy: HTTPProxy?
    /// The URL path with `{client}`, `{org}`, `{host}` and `{token}` placeholders.
    package var pathTemplate: String
    package var heartbeatInterval: Duration
    package var heartbeatText: String
    /// The acknowledgement text; `{id}` becomes the message id.
    package var ackText: String
    /// The JSON member that holds a push's message id.
    package var idField: String
    /// The members holding a push's priority, link and recipients.
    package var priorityField: String
    package var linkField: String
    package var recipientsField: String
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
    /// The JSON member that holds the id of a message to the server.
    package var upstreamIDField: String
    /// The server's acknowledgement of a message, `{id}` in it; `nil`: the server does not
    /// acknowledge, and a message is delivered once written.
    package var upstreamAckText: String?
    /// The member of a server frame that names the request it answers.
    package var replyToField: String
    /// Messages to the server unacknowledged at once, at most.
    package var outboxWindow: Int
    /// How long a message to the server is tried; `nil`: forever.
    package var outboxTTL: Duration?
    /// How long `intrapush request` waits for the reply unless given `--timeout`.
    package var requestTimeout: Duration
    /// A JSON object text queued for the server when a notification is marked read.
    package var readReceiptText: String?
    /// Where `GET /metrics` is served (Prometheus text); `nil`: nowhere.
    package var metricsListen: ListenAddress?
    /// A file the same text is written to, atomically (node_exporter's textfile collector).
    package var metricsFile: String?
    /// `readers = "everyone"`: every local user may read the notifications addressed to them
    /// through the local API; `"group"` (the default): members of the group `intrapush` only.
    package var everyoneReads: Bool

    package init(
        host: String,
        fallbackHosts: [String] = [],
        failbackInterval: Duration? = Defaults.failbackInterval,
        org: String,
        client: String = Defaults.client,
        hostIdentity: HostIdentity? = nil,
        token: Secret,
        tokenSource: String = "token",
        tls: Bool = false,
        caFile: String? = nil,
        clientIdentity: ClientIdentity? = nil,
        tlsPins: [String] = [],
        proxy: HTTPProxy? = nil,
        pathTemplate: String = Defaults.pathTemplate,
        heartbeatInterval: Duration = Defaults.heartbeatInterval,
        heartbeatText: String = Defaults.heartbeatText,
        ackText: String = Defaults.ackText,
        idField: String = Defaults.idField,
        priorityField: String = Defaults.priorityField,
        linkField: String = Defaults.linkField,
        recipientsField: String = Defaults.recipientsField,
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
        helloText: String? = nil,
        upstreamIDField: String = Defaults.idField,
        upstreamAckText: String? = Defaults.upstreamAckText,
        replyToField: String? = nil,
        outboxWindow: Int = Defaults.outboxWindow,
        outboxTTL: Duration? = Defaults.outboxTTL,
        requestTimeout: Duration = Defaults.requestTimeout,
        readReceiptText: String? = nil,
        metricsListen: ListenAddress? = nil,
        metricsFile: String? = nil,
        everyoneReads: Bool = false
    ) {
        self.hosts = [host] + fallbackHosts
        self.failbackInterval = failbackInterval
        self.org = org
        self.client = client
        self.hostIdentity = hostIdentity
        self.token = token
        self.tokenSource = tokenSource
        self.tls = tls
        self.caFile = caFile
        self.clientIdentity = clientIdentity
        self.tlsPins = tlsPins
        self.proxy = proxy
        self.pathTemplate = pathTemplate
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatText = heartbeatText
        self.ackText = ackText
        self.idField = idField
        self.priorityField = priorityField
        self.linkField = linkField
        self.recipientsField = recipientsField
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
        self.upstreamIDField = upstreamIDField
        self.upstreamAckText = upstreamAckText
        self.replyToField = replyToField ?? upstreamIDField
        self.outboxWindow = outboxWindow
        self.outboxTTL = outboxTTL
        self.requestTimeout = requestTimeout
        self.readReceiptText = readReceiptText
        self.metricsListen = metricsListen
        self.metricsFile = metricsFile
        self.everyoneReads = everyoneReads
    }

    /// `on_notification` split into a program and its arguments; `nil` when unset (or, for a
    /// configuration built by hand, when it does not parse).
    package var hookCommand: HookCommandLine? {
        onNotification.flatMap { try? HookCommandLine(parsing: $0) }
    }

    /// The local API's Unix socket, where the CLI, the agent and any local program reach the
    /// daemon of `database`.
    package var localAPISocket: String { Self.localAPISocket(forDatabase: database) }

    /// `/run/intrapush/io.intrapush` for the packaged database, where systemd's services keep
    /// theirs and where programs outside the package find it; beside any other database, as
    /// `<database>.sock`, so that two daemons of two databases never share one and the CLI
    /// finds the daemon of the database it reads, whatever names it.
    package static func localAPISocket(forDatabase database: String) -> String {
        database == Defaults.database ? Defaults.localAPISocket : database + ".sock"
    }

    /// A Unix socket's path holds at most this many bytes.
    package static let longestSocketPath = 107

    /// Every server named is this machine itself (`localhost`, 127.0.0.0/8, ::1): then, and only
    /// then, `tls` defaults to false, since nothing sent there crosses a network.
    static func everyHostIsLocal(_ hosts: [String]) -> Bool {
        !hosts.isEmpty && hosts.allSatisfy { host in
            if case .success(let parsed) = HostAndPort.parse(host) { return parsed.isLoopback }
            return false
        }
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
        package static let priorityField = "priority"
        package static let linkField = "click"
        package static let recipientsField = "to"
        /// `dead_peer_timeout` is this many heartbeat intervals unless set.
        package static let deadPeerFactor = 3
        package static let connectTimeout: Duration = .seconds(10)
        package static let reconnectMin: Duration = .seconds(1)
        package static let reconnectMax: Duration = .seconds(60)
        package static let failbackInterval: Duration = .seconds(300)
        /// Servers in `host`, at most: a list is a primary and its standbys, not a fleet.
        package static let maximumHosts = 16
        package static let maxMessageSize = 1_048_576
        package static let database = "/var/lib/intrapush/notifications.sqlite3"
        package static let localAPISocket = "/run/intrapush/io.intrapush"
        package static let tokenFile = "/etc/intrapush/token"
        /// The token as the package seals it where systemd-creds can (see intrapush-token-generator).
        package static let sealedTokenFile = "/etc/credstore.encrypted/intrapush.token"
        package static let configurationFile = "/etc/intrapush/intrapush.conf"
        package static let retentionDays = 90
        package static let retentionMaxRows = 1_000_000
        package static let upstreamAckText = "received message {id}"
        package static let outboxWindow = 64
        package static let outboxTTL: Duration? = .seconds(7 * 24 * 3600)
        package static let requestTimeout: Duration = .seconds(30)
        /// The most `outbox_window` may be: each message in flight is held in memory.
        package static let maximumOutboxWindow = 65_536
    }
}
