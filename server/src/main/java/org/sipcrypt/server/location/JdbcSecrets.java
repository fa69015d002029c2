package org.sipcrypt.server.location;

import java.util.regex.Pattern;

/**
 * Keeps database passwords out of what is shown: JDBC URLs with their {@code password=...}
 * parameters masked, and failure messages (which drivers fill with URLs and sometimes the password
 * itself) with both masked. Used by the server's database and the lab's result store.
 * Threading: immutable (static methods only).
 */
public final class JdbcSecrets {

    /** Values of {@code password=...} style URL parameters. */
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password\\s*=)[^&;]*");

    private JdbcSecrets() {
    }

    /** The URL with every {@code password=} value replaced by {@code <masked>}. */
    public static String maskUrl(String jdbcUrl) {
        return URL_PASSWORD.matcher(jdbcUrl).replaceAll("$1<masked>");
    }

    /** A failure's message for our own exception, with anything that looks like the password masked. */
    public static String describe(Throwable t, String password) {
        String message = t.getMessage();
        if (message == null) {
            return t.getClass().getSimpleName();
        }
        message = maskUrl(message);
        if (password != null && password.length() >= 4) {
            message = message.replace(password, "<masked>");
        }
        return message;
    }
}
