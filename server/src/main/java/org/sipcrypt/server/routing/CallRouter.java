package org.sipcrypt.server.routing;

import java.util.concurrent.CompletionStage;

/**
 * An operator's own call logic: sees each new out-of-dialog request the proxy would route (not
 * REGISTER, not in-dialog requests, not ACK or CANCEL, not a request that still carries a Route to
 * another hop), after authentication, and decides where it goes ({@link RouteDecision}). Found with
 * {@link java.util.ServiceLoader}: a jar with a {@code META-INF/services/org.sipcrypt.server.routing.CallRouter}
 * file naming the class (public, with a public no-argument constructor) on the class path or in the
 * WAR's {@code WEB-INF/lib}; the setting {@code routing.router} chooses which run, by {@link #name()}.
 * Several run in the order given; the first decision other than {@link RouteDecision#CONTINUE} wins.
 * A router's stage that fails, or a {@code route} that throws, gets the request a 500; one not complete
 * within {@code routing.timeout} gets a 504; both counted in {@code routing.decisions}.
 * Threading: implementations are thread-safe; {@link #start} runs once before the first request,
 * {@link #route} on the {@code sipcrypt-router} threads (never on an event loop or a SIP lane), where it
 * may block (a JDBC query) but holds a router thread while it does; {@link #close} once at shutdown.
 */
public interface CallRouter extends AutoCloseable {

    /** The name {@code routing.router} chooses this router by: short, lower case, e.g. {@code lcr}. */
    String name();

    /**
     * Prepares the router before the first request: reads its options, checks its tables. A failure
     * here fails the server's start with this router's name and the exception's message. Routers that
     * need nothing prepared keep this default, which does nothing.
     *
     * @throws Exception when the router cannot work with {@code context}; the server does not start
     */
    default void start(RouterContext context) throws Exception {
    }

    /** Decides where {@code request} goes. Returns a stage the server never waits on; it may be complete already. */
    CompletionStage<RouteDecision> route(RouteRequest request);

    /** Releases what {@link #start} acquired; routers that acquired nothing keep this default, which does nothing. */
    @Override
    default void close() throws Exception {
    }
}
