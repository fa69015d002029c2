package org.sipcrypt.server.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.sip.ClientTransaction;
import javax.sip.Dialog;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * One request a {@link TestUa} sent on a client transaction, and every response that came back on
 * it, provisional and final, in arrival order; for an INVITE also the dialog its 2xx established
 * and the ACK the agent sent for it.
 * Threading: thread-safe; filled on the agent's stack event thread, awaited on test threads.
 */
public final class SipExchange {

    private final Request request;
    private final ClientTransaction tx;
    private final Supplier<List<String>> uaErrors;
    private final List<Response> responses = new ArrayList<>();
    private Dialog dialog;
    private Request ack;
    private boolean timedOut;

    SipExchange(Request request, ClientTransaction tx, Supplier<List<String>> uaErrors) {
        this.request = Objects.requireNonNull(request, "request");
        this.tx = Objects.requireNonNull(tx, "tx");
        this.uaErrors = Objects.requireNonNull(uaErrors, "uaErrors");
    }

    /** The request as sent. */
    public Request request() {
        return request;
    }

    /** The client transaction. */
    public ClientTransaction transaction() {
        return tx;
    }

    /** Every response so far, provisional and final, in arrival order. */
    public synchronized List<Response> responses() {
        return List.copyOf(responses);
    }

    /** Status codes of every response so far. */
    public synchronized List<Integer> statuses() {
        return responses.stream().map(Response::getStatusCode).toList();
    }

    /** The dialog a 2xx established, or null. */
    public synchronized Dialog dialog() {
        return dialog;
    }

    /** The ACK sent for a 2xx to an INVITE, or null. */
    public synchronized Request ack() {
        return ack;
    }

    /** Waits for the final response; fails on timeout (also when the transaction timed out). */
    public Response awaitFinal(Duration timeout) throws InterruptedException {
        return await(r -> r.getStatusCode() >= 200, "final response", timeout);
    }

    /** Waits for a response with the given status. */
    public Response await(int status, Duration timeout) throws InterruptedException {
        return await(r -> r.getStatusCode() == status, "status " + status, timeout);
    }

    private synchronized Response await(Predicate<Response> wanted, String what, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Response r : responses) {
                if (wanted.test(r)) {
                    return r;
                }
            }
            long left = deadline - System.nanoTime();
            if (timedOut || left <= 0) {
                List<String> errors = uaErrors.get();
                throw new AssertionError(request.getMethod() + " " + request.getRequestURI() + ": no " + what
                        + (timedOut ? " (transaction timed out)" : " within " + timeout)
                        + "; got " + statuses() + (errors.isEmpty() ? "" : ", agent errors " + errors));
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** A response arrived; {@code d} is its dialog, {@code sentAck} the ACK sent for a 2xx (or null). */
    synchronized void add(Response r, Dialog d, Request sentAck) {
        responses.add(r);
        if (d != null && r.getStatusCode() / 100 == 2) {
            dialog = d;
        }
        if (sentAck != null) {
            ack = sentAck;
        }
        notifyAll();
    }

    /** The transaction timed out: waiters fail at once. */
    synchronized void timeout() {
        timedOut = true;
        notifyAll();
    }
}
