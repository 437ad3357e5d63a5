"""A minimal RFC 6455 websocket client, on the standard library alone.

Only what a jobwheel worker needs: the client side of the opening
handshake (``ws://`` and ``wss://``), masked frames out, text (and binary)
messages in, fragmented messages reassembled, pings answered with pongs,
pongs reported, and the closing handshake. No extensions, no subprotocols,
no proxies.

One thread may receive while others send: sends are serialized by a lock,
and ``recv`` is for one thread at a time.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import math
import os
import select
import socket
import ssl
import struct
import threading
import time
import urllib.parse
from typing import Callable, NoReturn, Tuple, Union


__all__ = [
    "WebSocket",
    "WebSocketError",
    "HandshakeError",
    "ProtocolError",
    "MessageTooBig",
    "ConnectionClosed",
    "connect",
]

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONTINUATION = 0x0
OP_TEXT = 0x1
OP_BINARY = 0x2
OP_CLOSE = 0x8
OP_PING = 0x9
OP_PONG = 0xA

_DATA_OPS = (OP_CONTINUATION, OP_TEXT, OP_BINARY)
_CONTROL_OPS = (OP_CLOSE, OP_PING, OP_PONG)

CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_PROTOCOL_ERROR = 1002
CLOSE_INVALID_DATA = 1007
CLOSE_TOO_BIG = 1009
CLOSE_NO_STATUS = 1005
CLOSE_ABNORMAL = 1006


class WebSocketError(Exception):
    """Any failure of the websocket."""


class HandshakeError(WebSocketError):
    """The server did not accept the websocket (its HTTP status says why)."""


class ProtocolError(WebSocketError):
    """The peer broke RFC 6455; the connection was closed with ``code``."""

    code: int

    def __init__(self, message: str, code: int = CLOSE_PROTOCOL_ERROR) -> None:
        super().__init__(message)
        self.code = code


class MessageTooBig(ProtocolError):
    """A message over the receive limit; the connection was closed with 1009."""

    def __init__(self, message: str) -> None:
        super().__init__(message, CLOSE_TOO_BIG)


class ConnectionClosed(WebSocketError):
    """The connection ended: a close frame (``code``, ``reason``) or EOF (1006)."""

    code: int
    reason: str

    def __init__(self, code: int, reason: str = "") -> None:
        super().__init__("connection closed (%d%s)" % (code, ": " + reason if reason else ""))
        self.code = code
        self.reason = reason


#: A message received: ("text", str) or ("binary", bytes).
Received = Union[Tuple[str, str], Tuple[str, bytes]]


def _mask(data: bytes, key: bytes) -> bytes:
    """XORs data with the 4-byte key repeated (RFC 6455 §5.3), fast for
    large payloads: one big-integer XOR instead of a loop over bytes."""
    n = len(data)
    if n == 0:
        return b""
    k = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "little") ^ int.from_bytes(k, "little")).to_bytes(n, "little")


def _accept_key(key: str) -> str:
    return base64.b64encode(hashlib.sha1((key + _GUID).encode("ascii")).digest()).decode("ascii")


def connect(url: str, timeout: float = 15.0, max_message: int = 4 << 20, ssl_context: ssl.SSLContext | None = None,
            write_timeout: float = 10.0) -> WebSocket:
    """Opens a websocket to a ``ws://`` or ``wss://`` URL and returns it.

    ``timeout`` bounds connecting and the opening handshake;
    ``write_timeout`` each send afterwards. Messages larger than
    ``max_message`` bytes close the connection (1009). Raises
    HandshakeError if the server answers anything but 101, OSError (or
    ssl.SSLError) if it cannot be reached.
    """
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("ws", "wss"):
        raise ValueError("websocket URL %r: the scheme must be ws or wss" % url)
    if not u.hostname:
        raise ValueError("websocket URL %r has no host" % url)
    secure = u.scheme == "wss"
    port = u.port or (443 if secure else 80)
    sock = socket.create_connection((u.hostname, port), timeout=timeout)
    try:
        if secure:
            ctx = ssl_context or ssl.create_default_context()
            sock = ctx.wrap_socket(sock, server_hostname=u.hostname)
        host = u.hostname
        try:
            if ipaddress.ip_address(host).version == 6:
                host = "[%s]" % host
        except ValueError:
            pass
        if u.port and u.port != (443 if secure else 80):
            host = "%s:%d" % (host, u.port)
        path = u.path or "/"
        if u.query:
            path += "?" + u.query
        key = base64.b64encode(os.urandom(16)).decode("ascii")
        request = (
            "GET %s HTTP/1.1\r\n"
            "Host: %s\r\n"
            "Upgrade: websocket\r\n"
            "Connection: Upgrade\r\n"
            "Sec-WebSocket-Key: %s\r\n"
            "Sec-WebSocket-Version: 13\r\n"
            "\r\n" % (path, host, key)
        )
        sock.sendall(request.encode("ascii"))
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                raise HandshakeError("websocket %s: the server closed the connection during the handshake" % url)
            data += chunk
            if len(data) > 64 << 10:
                raise HandshakeError("websocket %s: the handshake answer is too long" % url)
        head, rest = data.split(b"\r\n\r\n", 1)
        lines = head.decode("iso-8859-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/"):
            raise HandshakeError("websocket %s: not an HTTP answer: %r" % (url, lines[0]))
        if parts[1] != "101":
            raise HandshakeError("websocket %s: HTTP %s" % (url, " ".join(parts[1:])))
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("upgrade", "").lower() != "websocket":
            raise HandshakeError("websocket %s: the answer does not upgrade to websocket" % url)
        if "upgrade" not in headers.get("connection", "").lower():
            raise HandshakeError("websocket %s: the answer's Connection header is not Upgrade" % url)
        if headers.get("sec-websocket-accept") != _accept_key(key):
            raise HandshakeError("websocket %s: wrong Sec-WebSocket-Accept" % url)
        sock.settimeout(write_timeout)
        return WebSocket(sock, max_message=max_message, initial=rest)
    except BaseException:
        sock.close()
        raise


class WebSocket:
    """An open websocket, client side. Made by connect()."""

    _sock: socket.socket  # an ssl.SSLSocket for wss://
    _max: int
    _buf: bytearray
    _wlock: threading.Lock
    _frag_op: int | None  # the opcode of a fragmented message being received
    _frag: bytearray
    _close_sent: bool
    _closed: bool
    on_pong: Callable[[bytes], object] | None
    last_read: float

    def __init__(self, sock: socket.socket, max_message: int = 4 << 20, initial: bytes = b"") -> None:
        self._sock = sock
        self._max = max_message
        self._buf = bytearray(initial)
        self._wlock = threading.Lock()
        self._frag_op = None
        self._frag = bytearray()
        self._close_sent = False
        self._closed = False
        #: Called with the payload (bytes) of each pong received, on the
        #: receiving thread.
        self.on_pong = None
        #: time.monotonic() of the last bytes received.
        self.last_read = time.monotonic()

    # Sending.

    def _send_frame(self, op: int, payload: bytes | bytearray, fin: bool = True) -> None:
        n = len(payload)
        head = bytearray([(0x80 if fin else 0) | op])
        if n < 126:
            head.append(0x80 | n)
        elif n < 1 << 16:
            head.append(0x80 | 126)
            head += struct.pack("!H", n)
        else:
            head.append(0x80 | 127)
            head += struct.pack("!Q", n)
        key = os.urandom(4)
        head += key
        data = bytes(head) + _mask(bytes(payload), key)
        with self._wlock:
            if self._closed:
                raise ConnectionClosed(CLOSE_ABNORMAL, "the websocket is closed")
            if op == OP_CLOSE:
                if self._close_sent:
                    return
                self._close_sent = True
            elif self._close_sent:
                raise ConnectionClosed(CLOSE_NORMAL, "the websocket is closing")
            self._sock.sendall(data)

    def send_text(self, text: str) -> None:
        """Sends one text message."""
        self._send_frame(OP_TEXT, text.encode("utf-8"))

    def send_binary(self, data: bytes | bytearray | memoryview) -> None:
        """Sends one binary message."""
        self._send_frame(OP_BINARY, bytes(data))

    def ping(self, payload: bytes = b"") -> None:
        """Sends a ping (payload at most 125 bytes); the pong goes to on_pong."""
        if len(payload) > 125:
            raise ValueError("a ping payload is at most 125 bytes")
        self._send_frame(OP_PING, payload)

    def close(self, code: int = CLOSE_NORMAL, reason: str = "") -> None:
        """Sends a close frame (once), then closes the connection."""
        try:
            payload = struct.pack("!H", code) + reason.encode("utf-8")[:123]
            self._send_frame(OP_CLOSE, payload)
        except (OSError, WebSocketError):
            pass
        self.abort()

    def abort(self) -> None:
        """Closes the connection at once, without a close frame."""
        with self._wlock:
            if self._closed:
                return
            self._closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()

    # Receiving.

    def _readable(self, deadline: float | None) -> bool:
        if isinstance(self._sock, ssl.SSLSocket) and self._sock.pending():
            return True
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return False
        try:
            if hasattr(select, "poll"):  # no FD_SETSIZE limit, unlike select
                p = select.poll()
                p.register(self._sock, select.POLLIN)
                return bool(p.poll(None if left is None else math.ceil(left * 1000)))
            ready, _, _ = select.select([self._sock], [], [], left)
            return bool(ready)
        except (ValueError, OSError):
            raise ConnectionClosed(CLOSE_ABNORMAL, "the websocket is closed")

    def _fill(self, n: int, deadline: float | None) -> bool:
        """Reads until n bytes are buffered; False when the deadline passes
        first (what was read stays buffered)."""
        while len(self._buf) < n:
            if not self._readable(deadline):
                return False
            try:
                chunk = self._sock.recv(1 << 16)
            except (ssl.SSLWantReadError, BlockingIOError, socket.timeout):
                continue
            except OSError as e:
                self.abort()
                raise ConnectionClosed(CLOSE_ABNORMAL, str(e))
            if not chunk:
                self.abort()
                raise ConnectionClosed(CLOSE_ABNORMAL, "the connection ended without a close frame")
            self._buf += chunk
            self.last_read = time.monotonic()
        return True

    def _fail(self, err: ProtocolError) -> NoReturn:
        self.close(err.code, str(err)[:100])
        raise err

    def _read_frame(self, deadline: float | None) -> tuple[bool, int, bytes] | None:
        if not self._fill(2, deadline):
            return None
        b0, b1 = self._buf[0], self._buf[1]
        fin, rsv, op = b0 & 0x80, b0 & 0x70, b0 & 0x0F
        masked, n = b1 & 0x80, b1 & 0x7F
        head = 2
        if n == 126:
            if not self._fill(4, deadline):
                return None
            (n,) = struct.unpack("!H", bytes(self._buf[2:4]))
            head = 4
        elif n == 127:
            if not self._fill(10, deadline):
                return None
            (n,) = struct.unpack("!Q", bytes(self._buf[2:10]))
            head = 10
        if rsv:
            self._fail(ProtocolError("a frame with reserved bits set"))
        if masked:
            self._fail(ProtocolError("a masked frame from the server"))
        if op not in _DATA_OPS and op not in _CONTROL_OPS:
            self._fail(ProtocolError("unknown opcode %d" % op))
        if op in _CONTROL_OPS and (not fin or n > 125):
            self._fail(ProtocolError("a fragmented or oversized control frame"))
        if op in _DATA_OPS and n + len(self._frag) > self._max:
            self._fail(MessageTooBig("a message over %d bytes" % self._max))
        if not self._fill(head + n, deadline):
            return None
        payload = bytes(self._buf[head:head + n])
        del self._buf[:head + n]
        return bool(fin), op, payload

    def recv(self, timeout: float | None = None) -> Received | None:

        """Returns the next message as ("text", str) or ("binary", bytes),
        or None if none is complete within timeout seconds (None: wait).

        Answers pings and reports pongs meanwhile. Raises ConnectionClosed
        when the connection ends (after answering a close frame), and
        ProtocolError (having closed the connection) when the server breaks
        RFC 6455 or sends a message over the limit.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            frame = self._read_frame(deadline)
            if frame is None:
                return None
            fin, op, payload = frame
            if op == OP_PING:
                try:
                    self._send_frame(OP_PONG, payload)
                except (OSError, WebSocketError):
                    pass
                continue
            if op == OP_PONG:
                if self.on_pong is not None:
                    self.on_pong(payload)
                continue
            if op == OP_CLOSE:
                code, reason = CLOSE_NO_STATUS, ""
                if len(payload) >= 2:
                    (code,) = struct.unpack("!H", payload[:2])
                    reason = payload[2:].decode("utf-8", "replace")
                self.close(code if len(payload) >= 2 else CLOSE_NORMAL)
                raise ConnectionClosed(code, reason)
            if op == OP_CONTINUATION:
                if self._frag_op is None:
                    self._fail(ProtocolError("a continuation frame with no message to continue"))
                self._frag += payload
                if not fin:
                    continue
                op, payload = self._frag_op, bytes(self._frag)
                self._frag_op, self._frag = None, bytearray()
            elif self._frag_op is not None:
                self._fail(ProtocolError("a new message before the fragmented one ended"))
            elif not fin:
                self._frag_op, self._frag = op, bytearray(payload)
                continue
            if op == OP_TEXT:
                try:
                    return "text", payload.decode("utf-8")
                except UnicodeDecodeError:
                    self._fail(ProtocolError("a text message that is not UTF-8", CLOSE_INVALID_DATA))
            return "binary", payload
