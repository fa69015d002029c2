package org.sipcrypt.server.transport.netty.tls;

import java.io.IOException;

/**
 * The TLS engine the configuration names cannot run in this JVM (the openssl engine's native
 * library did not load); the message names the engine and the cause, for one line at start.
 * Threading: immutable.
 */
public final class TlsEngineUnavailableException extends IOException {

    TlsEngineUnavailableException(String message) {
        super(message);
    }
}
