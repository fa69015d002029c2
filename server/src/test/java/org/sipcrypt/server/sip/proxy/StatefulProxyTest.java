package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StatefulProxyTest {

    @Test
    void anAckIsSentOnlyToAHostOfTheRfc3261Grammar() {
        for (String good : new String[] {"127.0.0.2", "127.0.0.01", "example.com", "example.com.", "a-1.example",
                "localhost", "[::1]", "[2001:db8::1]", "x1.y2.z"}) {
            assertTrue(StatefulProxy.host(good), good);
        }
        for (String bad : new String[] {"4294967295.0.0.2", "256.0.0.1", "1.2.3", "127.0.0.01.5", "1.1", "",
                "-a.example", "a-.example", "a..b", "ex ample.com", "[::1", "[]", "\u00e9t\u00e9.example",
                "example.123"}) {
            assertFalse(StatefulProxy.host(bad), bad);
        }
    }
}
