package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.config.ListenerConfig;
import org.sipcrypt.server.config.ServerConfig;

/**
 * The WebSocket settings: secure by default (a browser's Origin refused until listed), origins
 * compared in their serialised form, bad values refused at start naming the key, and the
 * {@code ws:}/{@code wss:} listener forms.
 * Threading: JUnit's test thread only.
 */
class WebSocketLimitsTest {

    @Test
    void byDefaultOnlyUpgradesWithoutOriginAreAccepted() {
        WebSocketLimits d = WebSocketLimits.defaults();
        assertTrue(d.originAllowed(null));
        assertFalse(d.originAllowed("https://phone.example.com"));
    }

    @Test
    void listedOriginsAndTheWildcardAreAccepted() {
        WebSocketLimits listed = new WebSocketLimits(4096, Duration.ofSeconds(30), List.of("https://phone.example.com"));
        assertTrue(listed.originAllowed("HTTPS://Phone.Example.com"));
        assertFalse(listed.originAllowed("https://phone.example.com:8443"));
        assertFalse(listed.originAllowed("null"));
        assertTrue(new WebSocketLimits(4096, Duration.ofSeconds(30), List.of("*")).originAllowed("https://any.example"));
    }

    @Test
    void originsAreSerialised() {
        assertEquals("https://phone.example.com:8443", WebSocketLimits.origin("HTTPS://Phone.Example.COM:8443"));
        assertNull(WebSocketLimits.origin("https://phone.example.com/app"));
        assertNull(WebSocketLimits.origin("phone.example.com"));
    }

    @Test
    void badSettingsFailAtStartNamingTheKey() {
        ConfigException origin = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, Map.of("ws.allowedOrigins", List.of("https://phone.example.com/app"))));
        assertTrue(origin.getMessage().contains("ws.allowedOrigins"), origin.getMessage());
        ConfigException frame = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, Map.of("ws.maxFrameBytes", List.of("100"))));
        assertTrue(frame.getMessage().startsWith("ws.maxFrameBytes"), frame.getMessage());
        ConfigException ping = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, Map.of("ws.pingInterval", List.of("500ms"))));
        assertTrue(ping.getMessage().contains("ws.pingInterval"), ping.getMessage());
        ConfigException wss = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, Map.of("listen", List.of("wss:127.0.0.1:8443"))));
        assertTrue(wss.getMessage().contains("tls.cert"), wss.getMessage());
    }

    @Test
    void wsListenersParseWithAdvertisedAddress() throws Exception {
        ListenerConfig ws = ListenerConfig.parse("ws:0.0.0.0:8080;advertise=sip.example.com:80");
        assertEquals(Transport.WS, ws.transport());
        assertEquals("ws:0.0.0.0:8080;advertise=sip.example.com:80", ws.toString());
        assertEquals(443, Transport.WSS.defaultPort());
        ServerConfig c = ConfigLoader.load(null, Map.of("listen", List.of("ws:127.0.0.1:0"),
                "ws.allowedOrigins", List.of("https://phone.example.com")));
        assertEquals(List.of("https://phone.example.com"), c.webSocket().allowedOrigins());
    }
}
