# SPDX-License-Identifier: Apache-2.0
"""The server's statements of docs/protocol.md (its S- ids), as the checker reports them.

scripts/check_protocol.py (make docs-check) holds this list and the document to each other: every
S- statement of the document is here with its level, and names a checker step that claims it.
"""

STATEMENTS = [
    ("S-HS-1", "MUST", "answers an upgrade on the client's path with 101 as RFC 6455 says, selecting no extension"),
    ("S-HS-2", "MUST NOT", "require a header the client does not send (no Content-Length, no Transfer-Encoding)"),
    ("S-HS-3", "MUST", "percent-decodes each segment of the path before comparing it"),
    ("S-HS-4", "MUST", "selects the subprotocol offered, or refuses with a 4xx other than 401 and 403; never one not offered"),
    ("S-HS-5", "MUST", "answers a token or organisation it does not accept with 401 or 403"),
    ("S-HS-6", "SHOULD", "answers 503 or 429 with Retry-After when it cannot take the client now"),
    ("S-HS-7", "MUST", "answers the upgrade within 10 s, its head within 80 KiB"),
    ("S-HS-8", "MUST", "with TLS, presents a certificate that names its host as a DNS name, TLS 1.2 at least"),
    ("S-HS-9", "MUST", "answers a path with a malformed percent-encoding (%zz, a % at the end) with 400, never 401 or 403"),
    ("S-HS-10", "MUST", "offered a subprotocol it does not speak, selects none or refuses with a 4xx other than 401 and 403"),
    ("S-HS-11", "MUST", "with a subprotocol of its own, answers an upgrade offering none with 101 selecting none, or a 4xx other than 401 and 403"),
    ("S-VER-1", "MUST", "accepts the upgrade whatever User-Agent and Intrapush-Protocol say, ignoring what it does not know"),
    ("S-HELLO-1", "MUST", "takes the first text frame of a connection as the hello: no acknowledgement, heartbeat or message"),
    ("S-HELLO-2", "MUST", "when it authenticates by the hello, sends and takes nothing before it, and closes on another"),
    ("S-HELLO-3", "MUST", "closes a connection whose hello carries a token it refuses with 1008 and a reason, nothing sent"),
    ("S-HELLO-4", "SHOULD", "closes with 1008 a connection whose hello has not come within 10 s"),
    ("S-HB-1", "MUST", "answers every ping with a pong carrying its payload, promptly, also while sending a backlog"),
    ("S-HB-2", "MUST", "takes the heartbeat text without effect: ignored, or echoed exactly"),
    ("S-HB-3", "SHOULD", "drops a client silent for 3 x heartbeat_interval (30 s), and not sooner"),
    ("S-HB-4", "SHOULD", "drops a silent client with a close frame of code 1001"),
    ("S-PUSH-1", "MUST", "sends each push as one message: text of valid UTF-8 (else binary), at most 1,024 fragments"),
    ("S-PUSH-2", "MUST NOT", "send a push that reads as a heartbeat, an acknowledgement of a message, or a reply"),
    ("S-SIZE-1", "MUST NOT", "send a message over the client's max_message_size (1 MiB)"),
    ("S-SIZE-2", "SHOULD", "after a close with 1009 or 1007, sets the push the client could not take aside"),
    ("S-ID-1", "MUST", "gives each push an id unique for the client for as long as it may deliver it and the client keeps it"),
    ("S-ACK-1", "MUST", "keeps each push and reply until it is acknowledged"),
    ("S-ACK-2", "MUST", "counts each received message as the acknowledgement of the oldest unacknowledged push or reply of the connection"),
    ("S-ACK-3", "MUST", "lets no text frame but an acknowledgement acknowledge anything"),
    ("S-ACK-4", "SHOULD", "delivers the unacknowledged pushes again on the next connection, in order, before new ones"),
    ("S-ACK-5", "SHOULD NOT", "send a push again on the connection it was sent on"),
    ("S-ACK-6", "MUST", "ignores an acknowledgement with nothing to acknowledge"),
    ("S-ACK-7", "SHOULD NOT", "wait for an acknowledgement before sending the next push"),
    ("S-ACK-8", "MUST", "counts an acknowledgement whose {id} is empty or null for the oldest unacknowledged push, by order"),
    ("S-OUT-1", "MUST", "acknowledges each message it takes with exactly received message {id}, as one text frame"),
    ("S-OUT-2", "MUST", "acknowledges a message again each time it comes again"),
    ("S-OUT-3", "MUST", "takes a message once by its id, remembering taken ids for outbox_ttl (7 days)"),
    ("S-OUT-4", "MUST NOT", "acknowledge a message it has not taken"),
    ("S-REQ-1", "MUST", "replies with a JSON object whose id is the request's, kept, delivered and acknowledged as a push"),
    ("S-REQ-2", "SHOULD", "answers a request once: a repeat is acknowledged, not answered again"),
    ("S-CLOSE-1", "MUST", "answers the client's close with a close, and sends nothing after it"),
    ("S-CLOSE-2", "SHOULD", "closes by stopping sending, waiting for what it sent to be acknowledged, then its close frame"),
    ("S-CLOSE-3", "SHOULD", "closes with 1001 going away, 1012 or 1013 restarting (retry-after=N in the reason)"),
    ("S-HOST-1", "MUST", "keeps pushes waiting, sent and unacknowledged, and the ids of messages taken per (organisation, host)"),
    ("S-HOST-2", "MUST", "sends an organisation's push to each of its hosts; one host's acknowledgement never clears another's copy"),
    ("S-HOST-3", "SHOULD", "gives a host that connects for the first time the organisation's pushes queued before (its retention)"),
    ("S-HOST-4", "MUST", "sends a push addressed to one host to that host alone"),
    ("S-HOST-5", "MUST", "closes a host's older connection with 4409 when it opens a newer; what it did not acknowledge goes on the newer, first"),
    ("S-HOST-6", "MUST", "serves a connection without Intrapush-Host as before: one host per organisation and token"),
    ("S-HOST-7", "SHOULD", "answers an upgrade whose Intrapush-Host is malformed with 400, never 401 or 403"),
    ("S-FAIL-1", "SHOULD", "shares push ids between the servers of one fleet"),
    ("S-SEC-1", "SHOULD", "offers wss to clients beyond its own host"),
    ("S-SEC-2", "SHOULD NOT", "write the token (the path, an Authorization header) to its logs"),
]

# The statements protocol 1.2 added: a server of 1.1 (`check_server.py --protocol 1.1`) is not held
# to them. Some answer what 1.1 left open (S-ACK-8: 1.1's S-ACK-6 let a server ignore an empty id).
SINCE_1_2 = {"S-HS-9", "S-HS-10", "S-HS-11", "S-HELLO-3", "S-HELLO-4", "S-HB-4", "S-ACK-8", "S-HOST-1", "S-HOST-2",
             "S-HOST-3", "S-HOST-4", "S-HOST-5", "S-HOST-6", "S-HOST-7"}

LEVELS = {identifier: level for identifier, level, _ in STATEMENTS}
TITLES = {identifier: title for identifier, _, title in STATEMENTS}

# step name -> the statements it reports on; filled by @checks in steps_*.py
STEPS = {}


def checks(*identifiers):
    """Marks a checker step as the one that reports on these statements."""
    def register(function):
        for identifier in identifiers:
            assert identifier in LEVELS, f"{function.__name__} claims {identifier}, which is no statement"
        STEPS[function.__name__] = (identifiers, function)
        function.statements = identifiers
        return function
    return register
