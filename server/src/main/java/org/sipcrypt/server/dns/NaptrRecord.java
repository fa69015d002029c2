package org.sipcrypt.server.dns;

import java.util.Locale;
import java.util.Objects;
import org.sipcrypt.server.transport.Transport;

/**
 * The data of one NAPTR record (RFC 3403 §4.1) as RFC 3263 §4.1 uses it: order, preference, flags,
 * service and the replacement name to look up SRV records at.
 * Threading: immutable.
 *
 * @param ttl the record's time to live, in seconds
 */
public record NaptrRecord(int order, int preference, String flags, String service, String regexp,
                          String replacement, long ttl) {

    public NaptrRecord {
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(regexp, "regexp");
        Objects.requireNonNull(replacement, "replacement");
    }

    /**
     * The transport of an RFC 3263 §4.1 service ({@code SIP+D2U} UDP, {@code SIP+D2T} TCP,
     * {@code SIPS+D2T} TLS) whose next step is an SRV lookup (flag {@code s}) of its replacement;
     * null for any other record, which a SIP client discards.
     */
    public Transport sipTransport() {
        if (!flags.equalsIgnoreCase("s") || !regexp.isEmpty() || replacement.isEmpty() || replacement.equals(".")) {
            return null;
        }
        return switch (service.toUpperCase(Locale.ROOT)) {
            case "SIP+D2U" -> Transport.UDP;
            case "SIP+D2T" -> Transport.TCP;
            case "SIPS+D2T" -> Transport.TLS;
            default -> null;
        };
    }
}
