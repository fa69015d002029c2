package org.sipcrypt.server.dns;

import java.util.Locale;
import java.util.Objects;

/**
 * Why a SIP server could not be located: its reason, which is the tag of
 * {@code dns.resolutions{result}}, and the name and step that failed. Comes at the request rate
 * when a name server is down, so it fills in no stack trace.
 * Threading: immutable.
 */
public final class ResolutionFailure extends Exception {

    private static final long serialVersionUID = 1L;

    /** The reasons, as metric tags in lower case. */
    public enum Reason {
        /** A name server did not answer within {@code dns.timeout}. */
        TIMEOUT,
        /** No record at any step: NAPTR, SRV and A/AAAA all came back empty. */
        NOT_FOUND,
        /** Addresses were found, but none over a transport and address family the server sends from. */
        NO_USABLE_HOP,
        /** The resolver failed otherwise (a name server refused, a closed resolver). */
        ERROR;

        /** The metric tag: {@code not_found}. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Reason reason;

    public ResolutionFailure(Reason reason, String message, Throwable cause) {
        super(message, cause, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
