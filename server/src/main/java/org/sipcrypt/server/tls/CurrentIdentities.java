package org.sipcrypt.server.tls;

import java.util.Objects;

/**
 * The {@link ServerIdentities} a TLS stage presents now, replaced whole by a reload: new handshakes
 * take the new set, a handshake under way finishes with the set it chose from (kept here until the
 * next replacement), and connections already up keep their session.
 * Threading: thread-safe; {@link #current} and {@link #previous} never block (event loops);
 * {@link #replace} is serialised.
 */
public final class CurrentIdentities {

    private volatile ServerIdentities current;
    private volatile ServerIdentities previous;

    public CurrentIdentities(ServerIdentities initial) {
        this.current = Objects.requireNonNull(initial, "initial");
    }

    /** The set new handshakes choose from. */
    public ServerIdentities current() {
        return current;
    }

    /** The set the current one replaced, still used by handshakes under way; null before any replacement. */
    public ServerIdentities previous() {
        return previous;
    }

    /** Makes {@code next} the current set; the one it replaces stays {@link #previous} until the next. */
    public synchronized void replace(ServerIdentities next) {
        Objects.requireNonNull(next, "next");
        previous = current;
        current = next;
    }

    /** A key manager choosing from these sets (jsse and openssl engines). */
    public ServerNameKeyManager keyManager() {
        return new ServerNameKeyManager(this::current, this::previous);
    }
}
