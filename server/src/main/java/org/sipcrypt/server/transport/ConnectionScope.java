package org.sipcrypt.server.transport;

/**
 * Names the call on whose behalf the current thread is sending, so that the transport can put the
 * message on that call's own connection when the target uses the {@code per-call} pattern.
 * JAIN-SIP asks the transport for a channel without passing the message, so the SIP layer sets the
 * scope around each send of an INVITE dialog's messages:
 * {@code try (var s = ConnectionScope.call(callId)) { tx.sendRequest(); }}.
 * Threading: thread-confined (one scope per thread, nested scopes restore the outer one).
 */
public final class ConnectionScope implements AutoCloseable {

    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private final String previous;

    private ConnectionScope(String previous) {
        this.previous = previous;
    }

    /** Opens a scope for the given Call-ID on this thread. */
    public static ConnectionScope call(String callId) {
        ConnectionScope scope = new ConnectionScope(CURRENT.get());
        CURRENT.set(callId);
        return scope;
    }

    /** The Call-ID of the innermost open scope on this thread, or {@code null}. */
    public static String currentCallId() {
        return CURRENT.get();
    }

    @Override
    public void close() {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
