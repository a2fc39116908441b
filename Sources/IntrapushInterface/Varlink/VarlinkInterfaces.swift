// The descriptions of the local API, as `org.varlink.service.GetInterfaceDescription` returns them.
// The same text as packaging/varlink/*.varlink (a test compares them): change both together.
package enum VarlinkInterfaces {
    package static let vendor = "intrapush"
    package static let product = "intrapushd"
    /// The manual page that documents the API.
    package static let url = "man:intrapush(1)"
    /// The upstream version, as the top entry of debian/changelog has it (a test compares them).
    package static let version = "0.4.0"

    /// Each interface the daemon answers, by name.
    package static let descriptions: [String: String] = [
        "io.intrapush.Notifications": #"""
            # The notifications intrapushd stored, as the caller may see them: those addressed to the
            # caller's user, to a group the caller is in, or to everyone. Root and the members of the group
            # intrapush-admin see all of them. Who calls is what the kernel says of the socket's peer, never
            # a parameter. Read marks are per person.
            interface io.intrapush.Notifications

            # One notification. Times are Unix milliseconds. read_at is when the caller marked it read
            # (or when it was marked before marks were per person); null while it is unread for the caller.
            # recipients is null for a push to everyone.
            type Notification (
                id: int,
                message_id: ?string,
                received_at: int,
                title: ?string,
                body: ?string,
                payload: string,
                read_at: ?int,
                priority: ?int,
                link: ?string,
                recipients: ?[]string
            )

            # Which notifications: received at or after since and before until; only those unread for the
            # caller; those whose title, body or payload contain grep (ignoring case unless grep has an
            # uppercase letter); at least this priority (1-5, a push without one counts as 3); with mine,
            # only those addressed to the caller, their groups or everyone (what everyone but an
            # administrator sees anyway).
            type Filter (
                since: ?int,
                until: ?int,
                unread: ?bool,
                grep: ?string,
                priority: ?int,
                mine: ?bool
            )

            # The newest limit notifications selected (default 20), newest first; with oldest_first, the
            # oldest first. after_id selects only those with a larger id. Without more, limit is at most
            # 1000; with more, limit 0 means all, sent as replies of up to 500 notifications each.
            method List(filter: ?Filter, limit: ?int, oldest_first: ?bool, after_id: ?int) -> (notifications: []Notification)

            # One notification. NoSuchNotification also when it is not addressed to the caller.
            method Show(id: int) -> (notification: Notification)

            # How many notifications the filter selects.
            method Count(filter: ?Filter) -> (count: int)

            # Marks notifications read for the caller (with all: every one unread for them), and queues a
            # read receipt for each when read_receipt_text is set. Answers once committed. missing lists
            # the ids that do not exist or are not addressed to the caller.
            method MarkRead(ids: ?[]int, all: ?bool) -> (marked: int, already_read: int, missing: []int, receipts: int)

            # Called with more: each notification for the caller with an id above after_id (default: the
            # newest now), oldest first, as it is committed; a subscriber resuming from the last id it
            # saw misses none across a restart of either side. A subscriber that stops reading is dropped.
            method Subscribe(after_id: ?int) -> (notification: Notification)

            error NoSuchNotification (id: int, message: string)
            error PermissionDenied (message: string)
            error Busy (message: string)
            error StoreFailed (message: string)
            """#,
        "io.intrapush.Outbox": #"""
            # Messages from this host to the on-premises server (README "The outbox"). Queueing speaks for
            # the whole host, so it is its own grant: root and the members of the group intrapush-send.
            interface io.intrapush.Outbox

            # Queues a message (a JSON object, as the server takes it); answers once it is committed, with
            # its outbox row and its message id (found in the message, or added to it).
            method Send(message: string) -> (row: int, message_id: string)

            # Queues a request and answers with the server's reply once it is committed, or RequestExpired
            # after timeout_ms (default request_timeout). With more, a first reply (reply null) says the
            # request is queued.
            method Request(message: string, timeout_ms: ?int) -> (row: int, message_id: string, reply: ?string)

            error PermissionDenied (message: string)
            error Refused (reason: string, message: string)
            error RequestExpired (message_id: string, message: string)
            error Busy (message: string)
            error StoreFailed (message: string)
            """#,
        "io.intrapush.Daemon": #"""
            # The daemon itself, for anyone who may read notifications or send.
            interface io.intrapush.Daemon

            # The live state (as intrapush status shows it: state, server, connected_since, counters, ...;
            # names as in the daemon_state table, times in Unix milliseconds), and how many notifications
            # the caller may see and how many of those are unread for them.
            method Status() -> (state: object, notifications: int, unread: int)

            # The caller as the daemon sees it: the user and groups the kernel reported, and what they may do.
            method WhoAmI() -> (uid: int, user: ?string, groups: []string, reads: bool, reads_all: bool, sends: bool)

            error PermissionDenied (message: string)
            """#,
        "org.varlink.service": #"""
            # The Varlink service interface, answered by every Varlink service.
            interface org.varlink.service

            # Get a list of all the interfaces a service provides and information about the implementation.
            method GetInfo() -> (
              vendor: string,
              product: string,
              version: string,
              url: string,
              interfaces: []string
            )

            # Get the description of an interface that is implemented by this service.
            method GetInterfaceDescription(interface: string) -> (description: string)

            # The requested interface was not found.
            error InterfaceNotFound (interface: string)

            # The requested method was not found
            error MethodNotFound (method: string)

            # The interface defines the requested method, but the service does not implement it.
            error MethodNotImplemented (method: string)

            # One of the passed parameters is invalid.
            error InvalidParameter (parameter: string)

            # Client is denied access
            error PermissionDenied ()

            # Method is expected to be called with 'more' set to true, but wasn't
            error ExpectedMore ()
            """#,
    ]
}
