package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.transport.ConnectionPattern;

/**
 * Every settings record's builder names every component and {@code toBuilder()} carries every
 * component over: each component in turn is changed from its default through the builder, read
 * back, and survives {@code toBuilder().build()}. A component a builder forgets would fall back to
 * its default there, silently.
 */
@Timeout(30)
class ConfigBuildersTest {

    /**
     * Components left at their default: settings whose only valid changes need other settings with
     * them (a {@code cdr.sink} of jsonl needs {@code cdr.file}), and lists and maps empty by default
     * (which reversing cannot change).
     */
    private static final Set<String> UNCHANGED = Set.of("methods", "ciphers", "crypto", "routes", "domains",
            "trustedPeers", "pathPeers", "peers", "groups", "allowedOrigins", "routers", "options", "crl", "sink");

    @ParameterizedTest(name = "{0}")
    @ValueSource(classes = {ServerConfig.class, AuthConfig.class, TlsConfig.class, OverloadConfig.class,
        HttpConfig.class, TcpLimitsConfig.class, LimitsConfig.class, DbBreakerConfig.class,
        org.sipcrypt.server.transport.WebSocketLimits.class, RoutingConfig.class, CdrConfig.class})
    void everyComponentGoesThroughTheBuilderAndBack(Class<? extends Record> type) throws Exception {
        Record defaults = type == DbBreakerConfig.class ? DbBreakerConfig.DEFAULTS
                : (Record) type.getMethod("defaults").invoke(null);
        List<String> changed = new ArrayList<>();
        for (RecordComponent c : type.getRecordComponents()) {
            Object before = c.getAccessor().invoke(defaults);
            Object after = changed(c.getType(), before);
            if (after == null || UNCHANGED.contains(c.getName())) {
                continue;
            }
            assertNotEquals(before, after, c.getName());
            Object builder = type.getMethod("toBuilder").invoke(defaults);
            setter(builder.getClass(), c).invoke(builder, after);
            Record built = (Record) builder.getClass().getMethod("build").invoke(builder);
            assertEquals(after, c.getAccessor().invoke(built), c.getName() + " set through the builder");
            Object again = type.getMethod("toBuilder").invoke(built);
            assertEquals(built, again.getClass().getMethod("build").invoke(again), c.getName() + " kept by toBuilder");
            changed.add(c.getName());
        }
        assertEquals(type.getRecordComponents().length,
                changed.size() + UNCHANGED.stream().filter(n -> hasComponent(type, n)).count(),
                "components changed: " + changed);
    }

    @org.junit.jupiter.api.Test
    void tlsGroupsGoThroughTheKeyTheBuilderAndBack() throws Exception {
        ServerConfig c = ConfigLoader.load(null, java.util.Map.of("tls.groups", List.of("x25519mlkem768", "x25519")));
        assertEquals(List.of("x25519mlkem768", "x25519"), c.tls().groups());
        assertEquals(c.tls(), c.tls().toBuilder().build());
        assertTrue(ConfigLoader.describe(c).contains("\ntls.groups=x25519mlkem768,x25519\n"), ConfigLoader.describe(c));
        ConfigException bad = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, java.util.Map.of("tls.groups", List.of("x25519kyber768"))));
        assertTrue(bad.getMessage().contains("tls.groups: \"x25519kyber768\" is not a key-exchange group"), bad.getMessage());
    }

    @org.junit.jupiter.api.Test
    void secretsNeverShowInTheSettingsText() {
        String nonceSecret = "nonce-secret-0123456789";
        ServerConfig c = ServerConfig.defaults().toBuilder().dbPassword("db-pass-4711")
                .auth(AuthConfig.defaults().toBuilder().nonceSecret(nonceSecret).build())
                .tls(TlsConfig.defaults().toBuilder().keyPassword("key-pass-0815").build()).build();
        String text = c.toString();
        for (String secret : List.of("db-pass-4711", nonceSecret, "key-pass-0815")) {
            assertTrue(!text.contains(secret), secret + " shown in " + text);
        }
        assertTrue(text.contains("dbPassword=***") && text.contains("nonceSecret=***")
                && text.contains("keyPassword=***"), text);
        assertTrue(text.startsWith("ServerConfig[listeners="), text);
        assertTrue(AuthConfig.defaults().toString().contains("nonceSecret=,"), "an empty secret stays empty");
    }

    private static boolean hasComponent(Class<?> type, String name) {
        for (RecordComponent c : type.getRecordComponents()) {
            if (c.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static Method setter(Class<?> builder, RecordComponent c) throws NoSuchMethodException {
        Method m = builder.getMethod(c.getName(), c.getType());
        assertEquals(builder, m.getReturnType(), c.getName());
        return m;
    }

    /** A valid value other than {@code value}, alone among defaults; null where there is none to pick. */
    private static Object changed(Class<?> type, Object value) throws Exception {
        if (type == int.class) {
            return (Integer) value + 1;
        } else if (type == boolean.class) {
            return !(Boolean) value;
        } else if (type == Duration.class) {
            return ((Duration) value).plusSeconds(1);
        } else if (type == String.class) {
            // long enough for every string setting, admin.token (32 characters) included
            return "changed-0123456789-0123456789-0123456789";
        } else if (type == Path.class) {
            // readable, as the checks across records want of TLS files
            return value == null ? Path.of("pom.xml") : Path.of(value + "-changed");
        } else if (type == java.net.URI.class) {
            return java.net.URI.create("http://127.0.0.1:9/changed");
        } else if (type == HostPort.class) {
            return HostPort.parse("127.0.0.1:9090", -1);
        } else if (type == RouteConfig.class) {
            return RouteConfig.parseDefaultRoute("192.0.2.7", ConnectionPattern.PERSISTENT);
        } else if (type == List.class) {
            List<Object> list = new ArrayList<>((List<?>) value);
            Collections.reverse(list);
            return list.size() < 2 ? null : List.copyOf(list);
        } else if (type.isEnum()) {
            Object[] constants = type.getEnumConstants();
            return constants[value == null ? 0 : (((Enum<?>) value).ordinal() + 1) % constants.length];
        } else if (type.isRecord()) {
            // a nested settings record: its first component that can change alone, changed
            for (RecordComponent c : type.getRecordComponents()) {
                Object v = UNCHANGED.contains(c.getName()) ? null : changed(c.getType(), c.getAccessor().invoke(value));
                if (v != null) {
                    Object builder = type.getMethod("toBuilder").invoke(value);
                    setter(builder.getClass(), c).invoke(builder, v);
                    return builder.getClass().getMethod("build").invoke(builder);
                }
            }
            throw new AssertionError(type + ": no component changes alone");
        }
        return null;
    }
}
