package io.jobwheel.worker;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.System.Logger.Level.ERROR;
import static java.lang.System.Logger.Level.INFO;

/**
 * One websocket connection (java.net.http.WebSocket): the handshake, a
 * reader thread, and the writer, which runs on the connection loop's thread.
 *
 * <p>The JDK's listener only collects whole messages into an inbox and asks
 * for the next; the reader decodes and handles them one at a time and asks
 * for more once done, so a slow reader pushes back through TCP. Every send
 * (frames, pings, the close) is made by the one writer thread, one at a
 * time, as the JDK requires. The JDK answers pings itself.
 */
final class Session implements WebSocket.Listener {
    /** How long one send may take before the connection counts as lost. */
    private static final long WRITE_TIMEOUT_MS = 10_000;

    private static final Object BINARY = new Object();

    /** The server closed the connection, or it failed. */
    private static final class Gone {
        final Exception err;

        Gone(Exception err) {
            this.err = err;
        }
    }

    private final Worker w;
    private final String url;
    private WebSocket ws;
    private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private final StringBuilder partial = new StringBuilder();
    private boolean tooLarge;
    private volatile int closeCode; // 0: 1000 when the worker stops, 1001 when it reconnects
    private volatile long lastRead = System.nanoTime();
    private final AtomicLong ids = new AtomicLong();
    private final List<String> ctrl = new ArrayList<>(); // acks and other answers for the writer
    private final Object lock = new Object();
    private final CountDownLatch done = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private Exception err;
    private String finalFrame; // an error frame to send before closing

    private Session(Worker w, String url) {
        this.w = w;
        this.url = url;
    }

    /** Opens the websocket to url. */
    static Session open(Worker w, HttpClient http, String url, Duration timeout) throws IOException {
        Session s = new Session(w, url);
        CompletableFuture<WebSocket> f = http.newWebSocketBuilder()
                .connectTimeout(timeout)
                .buildAsync(URI.create(url), s);
        try {
            s.ws = f.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            throw new IOException("connecting to " + url + ": " + (c.getMessage() == null ? c.toString() : c.getMessage()), c);
        } catch (TimeoutException e) {
            f.thenAccept(WebSocket::abort); // should it open after all, nobody would read it
            throw new IOException("connecting to " + url + ": no answer within " + Cause.seconds(timeout));
        } catch (InterruptedException e) {
            f.thenAccept(WebSocket::abort);
            Thread.currentThread().interrupt();
            throw new IOException("connecting to " + url + ": interrupted");
        }
        return s;
    }

    long nextId() {
        return ids.incrementAndGet();
    }

    // The JDK's listener: whole messages into the inbox.

    @Override
    public void onOpen(WebSocket webSocket) {
        webSocket.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        lastRead = System.nanoTime();
        if (!tooLarge) {
            partial.append(data);
            // Chars are at most bytes in UTF-8: past the limit in chars is past it in bytes.
            if (partial.length() > Protocol.MAX_FRAME_BYTES) {
                tooLarge = true;
                partial.setLength(0);
            }
        }
        if (!last) {
            webSocket.request(1);
            return null;
        }
        if (tooLarge) {
            // As the server does (§2.2): close with 1009, "message too big".
            tooLarge = false;
            closeCode = 1009;
            inbox.add(new Gone(new Worker.Malformed("a message over " + Protocol.MAX_FRAME_BYTES + " bytes")));
            return null;
        }
        String text = partial.toString();
        partial.setLength(0);
        inbox.add(text); // the reader asks for the next message once it has handled this one
        return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
        lastRead = System.nanoTime();
        if (last) {
            inbox.add(BINARY);
        } else {
            webSocket.request(1);
        }
        return null;
    }

    @Override
    public CompletionStage<?> onPing(WebSocket webSocket, ByteBuffer message) {
        lastRead = System.nanoTime(); // the JDK sends the pong
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
        lastRead = System.nanoTime();
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        inbox.add(new Gone(new IOException("the server closed the connection (" + statusCode
                + (reason == null || reason.isEmpty() ? "" : " " + reason) + ")")));
        closed.countDown();
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        inbox.add(new Gone(new IOException("reading from " + url + ": " + error, error)));
        closed.countDown();
    }

    // The session.

    /** Ends the session once; the writer says goodbye and closes. */
    void end(Exception e, String fin) {
        synchronized (lock) {
            if (done.getCount() == 0) {
                return;
            }
            err = e;
            finalFrame = fin;
            done.countDown();
        }
        w.outbox().poke();
    }

    private boolean isDone() {
        return done.getCount() == 0;
    }

    void abort() {
        if (ws != null) {
            ws.abort();
        }
    }

    private void send(String text) throws IOException {
        try {
            ws.sendText(text, true).get(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            throw new IOException("writing to " + url + ": " + c, c);
        } catch (TimeoutException e) {
            throw new IOException("writing to " + url + ": the send took over " + WRITE_TIMEOUT_MS / 1000 + "s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("writing to " + url + ": interrupted");
        }
    }

    /**
     * Sends hello and returns the welcome body; null if the worker is
     * stopping meanwhile. Throws why it failed.
     */
    ObjectNode handshake(Duration timeout) throws Exception {
        send(Protocol.encode(Protocol.HELLO, w.hello(), nextId(), 0));
        long deadline = System.nanoTime() + timeout.toNanos();
        Object msg;
        while (true) {
            if (w.stopping() || isDone()) {
                return null;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException("no answer to hello from " + url + " within " + Cause.seconds(timeout));
            }
            msg = inbox.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(250)), TimeUnit.NANOSECONDS);
            if (msg != null) {
                break;
            }
        }
        if (msg instanceof Gone) {
            throw ((Gone) msg).err;
        }
        if (msg == BINARY) {
            throw new Worker.Malformed("the answer to hello is a binary frame");
        }
        Protocol.Frame f;
        try {
            f = Protocol.decode((String) msg);
        } catch (Protocol.BadFrame e) {
            throw new Worker.Malformed("answer to hello: " + e.getMessage());
        }
        more();
        switch (f.type) {
            case Protocol.WELCOME:
                return f.body;
            case Protocol.ERROR:
                throw w.serverError(f.body);
            case Protocol.REDIRECT:
                w.redirectTo(Protocol.text(f.body, "server"));
                throw new Worker.Redirected(Protocol.text(f.body, "server"), Protocol.text(f.body, "reason"));
            default:
                throw new Worker.Malformed("expected welcome, got " + f.type);
        }
    }

    /**
     * Runs the reader and the writer until the session ends; returns why it
     * ended (null: the worker is stopping).
     */
    Exception serve(ObjectNode welcome) {
        long hb = Protocol.integer(welcome, "heartbeatMs");
        long hbNanos = TimeUnit.MILLISECONDS.toNanos(hb <= 0 ? 5000 : Math.max(hb, 10));
        // The server answers pings; silence for this long means it is gone.
        long readTimeout = hbNanos * (Protocol.LOST_AFTER_BEATS + 1);
        Thread reader = new Thread(() -> reader(readTimeout), "jobwheel-reader");
        reader.setDaemon(true);
        reader.start();
        try {
            writer(hbNanos);
        } catch (IOException e) {
            end(e, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            end(null, null);
        }
        goodbye();
        try {
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (lock) {
            return err;
        }
    }

    private void sendCtrl(String text) {
        synchronized (lock) {
            if (isDone()) {
                return;
            }
            ctrl.add(text);
        }
        w.outbox().poke();
    }

    private void reply(long id, ObjectNode body) {
        if (id > 0) {
            try {
                sendCtrl(Protocol.encode(Protocol.ACK, body, 0, id));
            } catch (Protocol.FrameTooLarge e) {
                w.log().log(ERROR, () -> "an ack too large to send: " + e.getMessage());
            }
        }
    }

    private void reader(long readTimeout) {
        while (!isDone()) {
            Object msg;
            try {
                msg = inbox.poll(250, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                end(null, null);
                return;
            }
            if (msg == null) {
                long silent = System.nanoTime() - lastRead;
                if (silent > readTimeout) {
                    end(new IOException(url + " sent nothing for " + Cause.seconds(Duration.ofNanos(silent))), null);
                    return;
                }
                continue;
            }
            if (msg instanceof Gone) {
                end(((Gone) msg).err, null);
                return;
            }
            if (msg == BINARY) {
                malformed("a binary frame");
                return;
            }
            Protocol.Frame f;
            try {
                f = Protocol.decode((String) msg);
            } catch (Protocol.BadFrame e) {
                malformed(e.getMessage());
                return;
            }
            ObjectNode b = f.body;
            switch (f.type) {
                case Protocol.ACK:
                    w.outbox().ack(f.re, b);
                    break;
                case Protocol.DISPATCH:
                    reply(f.id, w.accept(b));
                    break;
                case Protocol.STOP:
                    w.log().log(INFO, () -> (b.path("unstarted").asBoolean(false) ? "take back (unstarted): instance " : "stop: instance ")
                            + Protocol.integer(b, "instanceId") + ", tasks " + b.path("taskIds") + ": " + Protocol.text(b, "reason"));
                    w.stopTasks(b);
                    ObjectNode ok = Protocol.JSON.createObjectNode();
                    ok.put("ok", true);
                    reply(f.id, ok);
                    break;
                case Protocol.REDIRECT:
                    w.redirectTo(Protocol.text(b, "server"));
                    end(new Worker.Redirected(Protocol.text(b, "server"), Protocol.text(b, "reason")), null);
                    return;
                case Protocol.ERROR:
                    end(w.serverError(b), null);
                    return;
                default: { // hello, welcome, heartbeat, report, logs, map, results: not the server's to send now
                    String why = "unexpected " + f.type + " frame";
                    w.log().log(ERROR, () -> "protocol error from the server; reconnecting: " + why);
                    end(new Worker.Malformed(why), errorFrame(Protocol.CODE_PROTOCOL, why));
                    return;
                }
            }
            more();
        }
    }

    /** Asks the JDK for the next message; a connection already closed has none. */
    private void more() {
        try {
            ws.request(1);
        } catch (RuntimeException e) {
            end(new IOException("reading from " + url + ": " + e), null);
        }
    }

    private static String errorFrame(String code, String message) {
        ObjectNode e = Protocol.JSON.createObjectNode();
        e.put("code", code);
        e.put("message", message);
        try {
            return Protocol.encode(Protocol.ERROR, e, 0, 0);
        } catch (Protocol.FrameTooLarge x) {
            return null;
        }
    }

    /** Ends the session after a frame that cannot be decoded, telling the server why (§3). */
    private void malformed(String why) {
        w.log().log(ERROR, () -> "malformed frame from the server; reconnecting: " + why);
        end(new Worker.Malformed(why), errorFrame(Protocol.CODE_BAD_FRAME, "bad frame: " + why));
    }

    private void writer(long hbNanos) throws IOException, InterruptedException {
        Outbox.Wake wake = w.outbox().wake;
        long flushNanos = w.flushInterval().toNanos();
        long now = System.nanoTime();
        long nextBeat = now + hbNanos;
        long nextFlush = now + flushNanos;
        wake.set(); // send what waited for this connection
        while (!isDone()) {
            long until = Math.min(nextBeat, nextFlush) - System.nanoTime();
            wake.awaitAndClear(Math.max(until, 0));
            if (isDone()) {
                return;
            }
            List<String> out;
            synchronized (lock) {
                out = new ArrayList<>(ctrl);
                ctrl.clear();
            }
            for (String text : out) {
                send(text);
            }
            now = System.nanoTime();
            if (now - nextBeat >= 0) {
                heartbeat();
                nextBeat = now + hbNanos;
            }
            flush();
            if (now - nextFlush >= 0) {
                nextFlush = now + flushNanos;
            }
        }
    }

    private void heartbeat() throws IOException {
        try {
            send(Protocol.encode(Protocol.HEARTBEAT, w.heartbeat(), 0, 0));
        } catch (Protocol.FrameTooLarge e) {
            throw new IOException("a heartbeat too large to send: " + e.getMessage());
        }
        try {
            ws.sendPing(ByteBuffer.wrap("jobwheel".getBytes(StandardCharsets.US_ASCII))).get(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("pinging " + url + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("pinging " + url + ": interrupted");
        }
    }

    private void flush() throws IOException {
        Outbox outbox = w.outbox();
        for (Outbox.Message m : outbox.take(this::nextId)) {
            String text;
            try {
                text = Protocol.encode(m.type, m.body(), m.id, 0);
            } catch (Protocol.FrameTooLarge | RuntimeException e) {
                outbox.discard(m.id, e);
                continue;
            }
            send(text);
        }
    }

    private void goodbye() {
        String fin;
        Exception e;
        synchronized (lock) {
            fin = finalFrame;
            e = err;
        }
        try {
            if (fin != null) {
                send(fin);
            }
            int code = closeCode != 0 ? closeCode : e == null ? WebSocket.NORMAL_CLOSURE : 1001;
            String reason = closeCode == 1009 ? "message too big" : e == null ? "worker shutting down" : "reconnecting";
            ws.sendClose(code, reason).get(2000, TimeUnit.MILLISECONDS);
            // Read on until the server's close arrives, so the connection ends
            // with the close handshake rather than a reset.
            ws.request(Long.MAX_VALUE);
            closed.await(1000, TimeUnit.MILLISECONDS);
        } catch (IOException | ExecutionException | TimeoutException | RuntimeException x) {
            // the connection is gone already
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } finally {
            ws.abort();
        }
    }
}
