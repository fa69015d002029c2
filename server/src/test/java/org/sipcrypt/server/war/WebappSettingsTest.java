package org.sipcrypt.server.war;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ServerConfig;

/** Where the WAR's settings come from, and which wins. */
@Timeout(10)
class WebappSettingsTest {

    @TempDir
    Path dir;

    private static final Map<String, String> NONE = Map.of();

    @Test
    void configFileIsTheContextParameterThenTheSystemPropertyThenTheEnvironment() {
        Map<String, String> param = Map.of("sipcrypt.config", "/from/param.yaml");
        Map<String, String> prop = Map.of("sipcrypt.config", "/from/property.yaml");
        Map<String, String> env = Map.of("SIPCRYPT_CONFIG", "/from/env.yaml");
        assertEquals(Path.of("/from/param.yaml"), WebappSettings.configFile(param::get, prop::get, env::get).file());
        assertEquals(Path.of("/from/property.yaml"), WebappSettings.configFile(NONE::get, prop::get, env::get).file());
        WebappSettings.Source fromEnv = WebappSettings.configFile(NONE::get, NONE::get, env::get);
        assertEquals(Path.of("/from/env.yaml"), fromEnv.file());
        assertEquals("environment variable SIPCRYPT_CONFIG", fromEnv.namedBy());
        assertNull(WebappSettings.configFile(NONE::get, NONE::get, NONE::get));
    }

    @Test
    void contextParametersNamedLikeSettingsOverrideTheFileAndOthersAreLeftAlone() throws Exception {
        Path file = dir.resolve("sipcrypt.properties");
        Files.writeString(file, "listen=udp:127.0.0.1:5070\nshutdown.grace=30s\nsip.workers=2\n");
        Map<String, String> params = new LinkedHashMap<>();
        params.put("listen", "udp:127.0.0.1:5080, tcp:127.0.0.1:5080");
        params.put("shutdown.grace", "5s");
        params.put("logbackDisableServletContainerInitializer", "true");
        Map<String, List<String>> settings = WebappSettings.settings(params.keySet(), params::get);
        assertEquals(Map.of("listen", List.of("udp:127.0.0.1:5080", "tcp:127.0.0.1:5080"),
                "shutdown.grace", List.of("5s")), settings);
        ServerConfig c = WebappSettings.load(new WebappSettings.Source(file, "test"), settings);
        assertEquals(2, c.listeners().size());
        assertEquals(5080, c.listeners().get(0).port());
        assertEquals(Duration.ofSeconds(5), c.shutdownGrace());
        assertEquals(2, c.sipWorkers(), "the file's value where no parameter overrides it");
    }

    @Test
    void badSettingFailsNamingTheKey() {
        Map<String, String> params = Map.of("sip.workers", "0");
        ConfigException e = assertThrows(ConfigException.class,
                () -> WebappSettings.load(null, WebappSettings.settings(params.keySet(), params::get)));
        assertTrue(e.getMessage().startsWith("sip.workers: \"0\" is out of range"), e.getMessage());
    }
}
