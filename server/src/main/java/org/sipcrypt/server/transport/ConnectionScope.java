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
    private static final ThreadLocal<Boolean> FLOW = new ThreadLocal<>();

    private final String previous;
    private final Boolean previousFlow;

    private ConnectionScope(String previous, Boolean previousFlow) {
        this.previous = previous;
        this.previousFlow = previousFlow;
    }

    /** Opens a scope for the given Call-ID on this thread. */
    public static ConnectionScope call(String callId) {
        ConnectionScope scope = new ConnectionScope(CURRENT.get(), FLOW.get());
        CURRENT.set(callId);
        FLOW.remove();
        return scope;
    }

    /**
     * Opens a scope for a message of the given Call-ID that goes over a flow (RFC 5626 §5.3): over
     * TCP and TLS only on a connection open already, never a new one (the flow's peer is a NAT
     * mapping or an ephemeral client port: nothing there accepts a connection).
     */
    public static ConnectionScope flow(String callId) {
        ConnectionScope scope = new ConnectionScope(CURRENT.get(), FLOW.get());
        CURRENT.set(callId);
        FLOW.set(Boolean.TRUE);
        return scope;
    }

    /** The Call-ID of the innermost open scope on this thread, or {@code null}. */
    public static String currentCallId() {
        return CURRENT.get();
    }

    /** Whether the innermost open scope on this thread sends over a flow: existing connections only. */
    public static boolean overFlow() {
        return FLOW.get() != null;
    }

    @Override
    public void close() {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
        if (previousFlow == null) {
            FLOW.remove();
        } else {
            FLOW.set(previousFlow);
        }
    }
}
