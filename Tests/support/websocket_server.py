# SPDX-License-Identifier: Apache-2.0
"""The server side of a WebSocket, by hand on a raw socket, for the peers the tests and the bench
write themselves (the hostile peer, the power-cut server, the bench's raw-socket server): the
upgrade's answer, server frames, and the daemon's (masked) frames read back.
"""
import base64
import hashlib
import struct

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def upgrade_answer(request):
    """The 101 answer to an upgrade request (its bytes up to the blank line)."""
    key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
               if line.lower().startswith(b"sec-websocket-key:"))
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    return (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")


def accept_upgrade(connection, request):
    connection.sendall(upgrade_answer(request))


def frame(opcode, payload=b"", fin=True):
    """A server frame: unmasked, `fin` unless a fragment."""
    head = bytes([(0x80 if fin else 0) | opcode])
    if len(payload) < 126:
        head += bytes([len(payload)])
    elif len(payload) < 65536:
        head += bytes([126]) + struct.pack("!H", len(payload))
    else:
        head += bytes([127]) + struct.pack("!Q", len(payload))
    return head + payload


def unmasked_frame(buffer):
    """(opcode, payload, rest) of the first whole client frame in `buffer`, or None."""
    if len(buffer) < 2:
        return None
    size, offset = buffer[1] & 0x7F, 2
    if size == 126:
        if len(buffer) < 4:
            return None
        size, offset = struct.unpack("!H", buffer[2:4])[0], 4
    elif size == 127:
        if len(buffer) < 10:
            return None
        size, offset = struct.unpack("!Q", buffer[2:10])[0], 10
    end = offset + 4 + size
    if len(buffer) < end:
        return None
    # XOR with the mask repeated, as one big integer: fast enough for thousands of frames a second.
    mask = (buffer[offset:offset + 4] * (size // 4 + 1))[:size]
    payload = (int.from_bytes(buffer[offset + 4:end], "big") ^ int.from_bytes(mask, "big")).to_bytes(size, "big")
    return buffer[0] & 0x0F, payload, buffer[end:]
