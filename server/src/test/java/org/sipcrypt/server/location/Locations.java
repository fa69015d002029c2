package org.sipcrypt.server.location;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the location service's tests share: an embedded H2 database in a test's directory, one
 * REGISTER applied and waited for, a contact, and the instant their clocks start at.
 * Threading: static methods only.
 */
final class Locations {

    static final String RECEIVED = "udp:192.0.2.1:5060";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private Locations() {
    }

    /** An embedded H2 database file under {@code dir} with a pool of four connections. */
    static Database open(Path dir) throws SQLException {
        return Database.open("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "sa", "", 4);
    }

    /** Applies one REGISTER adding or refreshing {@code contacts} and waits for its outcome. */
    static RegisterOutcome register(LocationService service, String aor, String callId, long cseq,
                                    String received, Instant now, ContactChange... contacts) throws Exception {
        return service.register(new RegisterChange(aor, callId, cseq, false, List.of(contacts), received, now))
                .get(30, TimeUnit.SECONDS);
    }

    /** A contact with no q value, registered for {@code seconds}. */
    static ContactChange contact(String uri, long seconds) {
        return new ContactChange(uri, uri, Duration.ofSeconds(seconds), -1f);
    }
}
