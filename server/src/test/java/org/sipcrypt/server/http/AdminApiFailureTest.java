package org.sipcrypt.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.JdbcLocationService;

/** What the management API answers when a handler fails: the location service's 503, anything else's 500. */
class AdminApiFailureTest {

    private static final String TOKEN = "t".repeat(AdminApi.MIN_TOKEN_CHARS);

    @TempDir
    Path dir;

    @Test
    @Timeout(30)
    void aFailedCertificateReloadIsTheServersOwn500NotTheLocationService() throws Exception {
        try (Database db = Database.open("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "sa", "", 2);
             JdbcLocationService locations = new JdbcLocationService(db, 2, 100)) {
            AdminApi.TlsReload failing = why -> CompletableFuture.failedFuture(new IllegalStateException("key store gone"));
            AdminApi api = new AdminApi(TOKEN, locations, uri -> true, Duration.ofHours(1), Clock.systemUTC(),
                    new SimpleMeterRegistry(), failing, AdminApi.Control.NONE);
            HttpEndpoints.Answer a = api.answer("POST", AdminApi.TLS_RELOAD, null, "Bearer " + TOKEN,
                    new byte[0], "127.0.0.1").get(10, TimeUnit.SECONDS);
            assertEquals(500, a.status(), a.body());
            assertTrue(a.body().contains("key store gone"), a.body());
            assertFalse(a.body().contains("location service"), a.body());
            // the bindings' handler on a closed database: the location service's 503, as before
            locations.close();
            HttpEndpoints.Answer b = api.answer("GET", AdminApi.BINDINGS, "aor="
                    + java.net.URLEncoder.encode("sip:alice@example.com", StandardCharsets.UTF_8),
                    "Bearer " + TOKEN, new byte[0], "127.0.0.1").get(10, TimeUnit.SECONDS);
            assertEquals(503, b.status(), b.body());
            assertTrue(b.body().startsWith("location service unavailable"), b.body());
        }
    }
}
