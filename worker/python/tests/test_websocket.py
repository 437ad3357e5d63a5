"""The websocket client against a small scripted server on loopback: each
test's server accepts one connection, answers the handshake, then plays a
script of raw frames, recording what the client sent."""

import base64
import hashlib
import socket
import struct
import threading
import unittest

from jobwheel import websocket

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(op, payload=b"", fin=True, mask=None):
    """A server frame (unmasked unless mask is given)."""
    head = bytearray([(0x80 if fin else 0) | op])
    n = len(payload)
    m = 0x80 if mask else 0
    if n < 126:
        head.append(m | n)
    elif n < 1 << 16:
        head.append(m | 126)
        head += struct.pack("!H", n)
    else:
        head.append(m | 127)
        head += struct.pack("!Q", n)
    if mask:
        head += mask
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes(head) + payload


class Peer:
    """The server side of one connection."""

    def __init__(self, conn):
        self.conn = conn
        self.buf = b""

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.conn.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read_frame(self):
        """A client frame: (fin, op, payload unmasked, was masked)."""
        b0, b1 = self._read(2)
        n = b1 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self._read(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self._read(8))
        key = self._read(4) if b1 & 0x80 else b"\0\0\0\0"
        data = self._read(n)
        return bool(b0 & 0x80), b0 & 0x0F, bytes(b ^ key[i % 4] for i, b in enumerate(data)), bool(b1 & 0x80)

    def send(self, data):
        self.conn.sendall(data)


class Server:
    """Accepts one websocket and runs script(peer) on it."""

    def __init__(self, script, status="101 Switching Protocols", accept=None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.url = "ws://127.0.0.1:%d/worker/connect?x=1" % self.sock.getsockname()[1]
        self.request = None
        self.error = None
        self.script, self.status, self.accept = script, status, accept
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.sock.accept()
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            self.request = data.decode()
            key = [l.split(":", 1)[1].strip() for l in self.request.split("\r\n") if l.lower().startswith("sec-websocket-key:")][0]
            accept = self.accept or base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
            conn.sendall(("HTTP/1.1 %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n"
                          % (self.status, accept)).encode())
            if self.status.startswith("101"):
                self.script(Peer(conn))
        except Exception as e:  # noqa: BLE001 - reported by join
            self.error = e
        finally:
            conn.close()
            self.sock.close()

    def join(self, test):
        self.thread.join(10)
        test.assertFalse(self.thread.is_alive(), "the test server did not finish")
        if self.error is not None:
            raise self.error


class WebSocketTest(unittest.TestCase):
    def test_handshake_and_masked_text_both_ways(self):
        got = []

        def script(p):
            got.append(p.read_frame())
            p.send(frame(websocket.OP_TEXT, "héllo back".encode()))
            got.append(p.read_frame())

        srv = Server(script)
        ws = websocket.connect(srv.url, timeout=5)
        ws.send_text("héllo")
        self.assertEqual(ws.recv(timeout=5), ("text", "héllo back"))
        ws.close()
        srv.join(self)
        self.assertIn("GET /worker/connect?x=1 HTTP/1.1", srv.request)
        self.assertIn("Sec-WebSocket-Version: 13", srv.request)
        fin, op, data, masked = got[0]
        self.assertEqual((fin, op, data.decode(), masked), (True, websocket.OP_TEXT, "héllo", True))
        fin, op, data, masked = got[1]
        self.assertEqual((op, struct.unpack("!H", data[:2])[0], masked), (websocket.OP_CLOSE, 1000, True))

    def test_large_messages_use_long_lengths(self):
        big = "x" * 70000
        echoed = []

        def script(p):
            _, _, data, _ = p.read_frame()
            echoed.append(len(data))
            p.send(frame(websocket.OP_TEXT, data))
            p.read_frame()

        srv = Server(script)
        ws = websocket.connect(srv.url, timeout=5)
        ws.send_text(big)
        self.assertEqual(ws.recv(timeout=5), ("text", big))
        ws.close()
        srv.join(self)
        self.assertEqual(echoed, [70000])

    def test_fragments_are_joined_around_control_frames(self):
        pongs = []

        def script(p):
            p.send(frame(websocket.OP_TEXT, b"one ", fin=False))
            p.send(frame(websocket.OP_PING, b"are you there"))
            p.send(frame(websocket.OP_CONTINUATION, b"two ", fin=False))
            p.send(frame(websocket.OP_PONG, b"p"))
            p.send(frame(websocket.OP_CONTINUATION, b"three"))
            pongs.append(p.read_frame())
            p.read_frame()  # close

        srv = Server(script)
        ws = websocket.connect(srv.url, timeout=5)
        seen = []
        ws.on_pong = seen.append
        self.assertEqual(ws.recv(timeout=5), ("text", "one two three"))
        self.assertEqual(seen, [b"p"])
        ws.close()
        srv.join(self)
        self.assertEqual(pongs[0][1:3], (websocket.OP_PONG, b"are you there"))

    def test_ping_from_the_client(self):
        def script(p):
            _, op, data, _ = p.read_frame()
            assert op == websocket.OP_PING
            p.send(frame(websocket.OP_PONG, data))
            p.send(frame(websocket.OP_TEXT, b"after"))
            p.read_frame()

        srv = Server(script)
        ws = websocket.connect(srv.url, timeout=5)
        seen = []
        ws.on_pong = seen.append
        ws.ping(b"hb")
        self.assertEqual(ws.recv(timeout=5), ("text", "after"))
        self.assertEqual(seen, [b"hb"])
        ws.close()
        srv.join(self)

    def test_close_from_the_server_is_answered(self):
        answer = []

        def script(p):
            p.send(frame(websocket.OP_CLOSE, struct.pack("!H", 1000) + b"bye"))
            answer.append(p.read_frame())

        srv = Server(script)
        ws = websocket.connect(srv.url, timeout=5)
        with self.assertRaises(websocket.ConnectionClosed) as cm:
            ws.recv(timeout=5)
        self.assertEqual((cm.exception.code, cm.exception.reason), (1000, "bye"))
        srv.join(self)
        self.assertEqual(answer[0][1], websocket.OP_CLOSE)
        with self.assertRaises(websocket.ConnectionClosed):
            ws.send_text("too late")

    def test_eof_is_a_closed_connection(self):
        srv = Server(lambda p: None)
        ws = websocket.connect(srv.url, timeout=5)
        with self.assertRaises(websocket.ConnectionClosed) as cm:
            ws.recv(timeout=5)
        self.assertEqual(cm.exception.code, 1006)
        srv.join(self)

    def test_recv_times_out_keeping_partial_frames(self):
        go = threading.Event()

        def script(p):
            data = frame(websocket.OP_TEXT, b"split across writes")
            p.send(data[:5])
            go.wait(5)
            p.send(data[5:])
            p.read_frame()

        srv = Server(script)
        ws = websocket.connect(srv.url, timeout=5)
        self.assertIsNone(ws.recv(timeout=0.2))
        go.set()
        self.assertEqual(ws.recv(timeout=5), ("text", "split across writes"))
        ws.close()
        srv.join(self)

    def assertClosesWith(self, script_frames, exc, code, max_message=1 << 20):
        closes = []

        def script(p):
            for f in script_frames:
                p.send(f)
            closes.append(p.read_frame())

        srv = Server(script)
        ws = websocket.connect(srv.url, timeout=5, max_message=max_message)
        with self.assertRaises(exc):
            ws.recv(timeout=5)
        srv.join(self)
        self.assertEqual(closes[0][1], websocket.OP_CLOSE)
        self.assertEqual(struct.unpack("!H", closes[0][2][:2])[0], code)

    def test_message_over_the_limit(self):
        self.assertClosesWith([frame(websocket.OP_TEXT, b"x" * 2000)], websocket.MessageTooBig, 1009, max_message=1000)

    def test_fragmented_message_over_the_limit(self):
        self.assertClosesWith([frame(websocket.OP_TEXT, b"x" * 600, fin=False), frame(websocket.OP_CONTINUATION, b"x" * 600)],
                              websocket.MessageTooBig, 1009, max_message=1000)

    def test_text_that_is_not_utf8(self):
        self.assertClosesWith([frame(websocket.OP_TEXT, b"\xff\xfe")], websocket.ProtocolError, 1007)

    def test_masked_frame_from_the_server(self):
        self.assertClosesWith([frame(websocket.OP_TEXT, b"hi", mask=b"abcd")], websocket.ProtocolError, 1002)

    def test_continuation_without_a_start(self):
        self.assertClosesWith([frame(websocket.OP_CONTINUATION, b"hi")], websocket.ProtocolError, 1002)

    def test_refused_upgrade(self):
        srv = Server(lambda p: None, status="503 Service Unavailable")
        with self.assertRaises(websocket.HandshakeError) as cm:
            websocket.connect(srv.url, timeout=5)
        self.assertIn("503", str(cm.exception))
        srv.join(self)

    def test_wrong_accept_key(self):
        srv = Server(lambda p: None, accept="bm90IHRoZSBrZXk=")
        with self.assertRaises(websocket.HandshakeError) as cm:
            websocket.connect(srv.url, timeout=5)
        self.assertIn("Accept", str(cm.exception))
        srv.join(self)

    def test_mask_matches_a_plain_xor(self):
        data = bytes(range(256)) * 3 + b"tail"
        key = b"\x01\x82\x43\xf4"
        self.assertEqual(websocket._mask(data, key), bytes(b ^ key[i % 4] for i, b in enumerate(data)))


if __name__ == "__main__":
    unittest.main()
