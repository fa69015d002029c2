package org.sipcrypt.server.auth;

/**
 * What digest authentication decided about one request.
 * Threading: immutable.
 */
public sealed interface AuthResult {

    /** The metric tag of this result: {@code auth.outcomes{result}}. */
    String tag();

    /** Valid credentials of {@code username}: go on with the request. */
    record Accepted(String username) implements AuthResult {
        @Override
        public String tag() {
            return "accepted";
        }
    }

    /**
     * Answer 401/407 with fresh challenges; {@code stale} tells the client its password was right but
     * its nonce was not (RFC 7616 §3.3). {@code why} is the metric tag: {@code no_credentials},
     * {@code no_qop}, {@code stale_nonce}, {@code invalid_nonce}, {@code replay}, {@code forgotten},
     * {@code failed}, {@code algorithm}.
     */
    record Challenge(boolean stale, String why) implements AuthResult {
        @Override
        public String tag() {
            return why;
        }
    }

    /**
     * Answer 403 with this reason phrase. Wrong passwords, unknown and disabled users get the same
     * phrase, so the answer does not tell which user names exist. {@code why}: {@code failed},
     * {@code identity}, {@code foreign_domain} (the identity is in none of our domains), {@code uri_mismatch} (the
     * digest uri is not the Request-URI).
     */
    record Refused(String reason, String why) implements AuthResult {
        @Override
        public String tag() {
            return why;
        }
    }

    /** Answer 400 with this reason phrase: the credentials are not well-formed. */
    record Malformed(String reason) implements AuthResult {
        @Override
        public String tag() {
            return "malformed";
        }
    }

    /** The subscriber store could not answer: 503 with Retry-After. */
    record Unavailable(Throwable cause) implements AuthResult {
        @Override
        public String tag() {
            return "unavailable";
        }
    }
}
