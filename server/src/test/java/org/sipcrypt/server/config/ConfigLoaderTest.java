package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

@Timeout(10)
class ConfigLoaderTest {

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    private static ServerConfig flags(Map<String, List<String>> commandLine) throws ConfigException {
        return ConfigLoader.load(null, commandLine);
    }

    private static String failure(Map<String, List<String>> commandLine) {
        return assertThrows(ConfigException.class, () -> flags(commandLine)).getMessage();
    }

    private static String fileFailure(Path file) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.load(file, Map.of())).getMessage();
    }

    /**
     * A command line written as {@code key=value} words, e.g. {@code listen=udp:127.0.0.1:5060 mode=proxy};
     * a key given twice becomes a list, as on the real command line.
     */
    private static Map<String, List<String>> commandLine(String words) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String word : words.trim().split("\\s+")) {
            int eq = word.indexOf('=');
            out.computeIfAbsent(word.substring(0, eq), k -> new ArrayList<>()).add(word.substring(eq + 1));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "a bad duration names the key, the value and the expected form | tcp.idleTimeout=5x"
            + " | tcp.idleTimeout: \"5x\" is not a duration (expected e.g. 300s, 5m, 1h, 250ms",
        "a bad boolean is refused | recordRoute=maybe | recordRoute: \"maybe\" is not a boolean",
        "the default expires must not lie below the minimum | registrar.minExpires=2h"
            + " | registrar.defaultExpires: 1h is below registrar.minExpires 2h",
        "the default expires must not lie above the maximum | registrar.maxExpires=30m"
            + " | registrar.defaultExpires: 1h is above registrar.maxExpires 30m",
        "server config checks come out as ConfigException | listen=udp:127.0.0.1:5060 listen=udp:127.0.0.1:5060"
            + " | listen[1]: udp:127.0.0.1:5060 binds the same UDP address:port as listen[0]",
        "a bad route names its index | route=example.com=10.0.0.2 route=example.org=10.0.0.3;transport=sctp"
            + " | route[1]: unknown transport \"sctp\"",
        "a route over a transport without a listener is refused"
            + " | listen=udp:127.0.0.1:5060 listen=tcp:127.0.0.1:5060"
            + " route=example.com=10.0.0.2;transport=tcp route=example.org=10.0.0.3:5061;transport=tls"
            + " | route[1]: transport tls needs a tls listener to send from",
        "a default route over a transport without a listener is refused"
            + " | listen=tcp:127.0.0.1:5060 defaultRoute=10.0.0.2 | defaultRoute: transport udp needs a udp listener",
        "per-call needs the netty transport | transport.impl=jain-nio tcp.connection=per-call"
            + " | tcp.connection: \"per-call\" needs the netty transport",
        "the overload queue threshold must fit the lane queue | sip.queueCapacity=100"
            + " | overload.queueThreshold: 2000 is above sip.queueCapacity 100",
        "the partial-bytes bound is checked against the message size | tcp.maxPartialBytes=4096"
            + " | tcp.maxPartialBytes: 4096 is below sip.maxMessageBytes 65535",
        "a zero message timeout names its key | tcp.messageTimeout=0 | 'tcp.messageTimeout: '",
        "zero connections per source is out of range | tcp.maxConnectionsPerSource=0"
            + " | tcp.maxConnectionsPerSource: \"0\" is out of range",
        "the fast-path switch is on or off | sip.fastPath=sometimes"
            + " | sip.fastPath: \"sometimes\" is not a boolean",
    })
    void refusedCommandLinesNameTheKey(String rule, String words, String expectedStart) {
        String message = failure(commandLine(words));
        assertTrue(message.startsWith(expectedStart), message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "an unknown transport in the second listener names listen[1]"
            + " | listen=udp:127.0.0.1:5060 listen=sctp:127.0.0.1:5060"
            + " | listen[1]: unknown transport \"sctp\" (expected udp, tcp, tls, ws or wss)",
        "a single-valued key given twice is refused | mode=proxy mode=redirect"
            + " | mode: 2 values given (expected exactly one)",
        "an unknown mode names the key | mode=forward | mode: unknown mode \"forward\" (expected proxy or redirect)",
    })
    void refusedCommandLinesGiveTheWholeMessage(String rule, String words, String expected) {
        assertEquals(expected, failure(commandLine(words)));
    }

    @Test
    void noFileAndNoFlagsGiveTheDefaults() throws ConfigException {
        assertEquals(ServerConfig.defaults(), ConfigLoader.load(null, Map.of()));
    }

    @Test
    void yamlNestedMapsAreFlattenedToDottedKeys() throws Exception {
        Path file = write("sipcrypt.yaml", """
                listen:
                  - udp:127.0.0.2:5070
                  - tcp:[::1]:5071
                dataDir: /var/lib/sipcrypt
                db: jdbc:postgresql://db.example.com/sip
                db.user: sip
                db.password: secret
                db.poolSize: 16
                mode: redirect
                recordRoute: off
                domain: [Example.COM, example.org]
                tcp:
                  idleTimeout: 90s
                  maxConnections: 500
                sip: {maxMessageBytes: 8192, workers: 2}
                registrar:
                  minExpires: 30
                """);
        ServerConfig c = ConfigLoader.load(file, Map.of());
        assertEquals(List.of(new ListenerConfig(Transport.UDP, "127.0.0.2", 5070),
                new ListenerConfig(Transport.TCP, "::1", 5071)), c.listeners());
        assertEquals(Path.of("/var/lib/sipcrypt"), c.dataDir());
        assertEquals("jdbc:postgresql://db.example.com/sip", c.dbUrl());
        assertEquals("sip", c.dbUser());
        assertEquals("secret", c.dbPassword());
        assertEquals(16, c.dbPoolSize());
        assertEquals(Mode.REDIRECT, c.mode());
        assertFalse(c.recordRoute());
        assertEquals(List.of("example.com", "example.org"), c.domains());
        assertEquals(Duration.ofSeconds(90), c.tcpIdleTimeout());
        assertEquals(500, c.tcpMaxConnections());
        assertEquals(8192, c.maxMessageBytes());
        assertEquals(2, c.sipWorkers());
        assertEquals(Duration.ofSeconds(30), c.minExpires());
        assertEquals(ServerConfig.defaults().tcpConnectTimeout(), c.tcpConnectTimeout());
    }

    @Test
    void propertiesTakeListsCommaSeparated() throws Exception {
        Path file = write("sipcrypt.properties", """
                listen=udp:127.0.0.1:5080, tcp:127.0.0.1:5080
                tcp.connection=per-call
                tcp.connectTimeout=250ms
                stats.interval=0
                route=
                transport.impl=netty
                io.threads=3
                """);
        ServerConfig c = ConfigLoader.load(file, Map.of());
        assertEquals(List.of(new ListenerConfig(Transport.UDP, "127.0.0.1", 5080),
                new ListenerConfig(Transport.TCP, "127.0.0.1", 5080)), c.listeners());
        assertEquals(ConnectionPattern.PER_CALL, c.tcpConnection());
        assertEquals(Duration.ofMillis(250), c.tcpConnectTimeout());
        assertEquals(Duration.ZERO, c.statsInterval());
        assertEquals(List.of(), c.routes());
        assertEquals(3, c.ioThreads());
    }

    @Test
    void commandLineWinsOverTheFilePerKey() throws Exception {
        Path file = write("sipcrypt.yml", """
                tcp: {idleTimeout: 5m}
                sip: {workers: 8}
                listen: [udp:127.0.0.1:5060, tcp:127.0.0.1:5060]
                """);
        ServerConfig c = ConfigLoader.load(file, Map.of(
                "tcp.idleTimeout", List.of("7m"),
                "listen", List.of("tcp:127.0.0.1:6000")));
        assertEquals(Duration.ofMinutes(7), c.tcpIdleTimeout());
        assertEquals(8, c.sipWorkers());
        assertEquals(List.of(new ListenerConfig(Transport.TCP, "127.0.0.1", 6000)), c.listeners());
    }

    @Test
    void theFastPathIsOnByDefaultAndTurnsOffByItsKey() throws ConfigException {
        assertTrue(ServerConfig.defaults().fastPath());
        assertFalse(flags(Map.of("sip.fastPath", List.of("off"))).fastPath());
        assertTrue(flags(Map.of("sip.fastPath", List.of("on"))).fastPath());
        assertEquals("--sip-fast-path", Setting.SIP_FAST_PATH.option());
    }

    @Test
    void anyListenerReplacesTheDefaultListeners() throws ConfigException {
        ServerConfig c = flags(Map.of("listen", List.of("udp:[::1]:0")));
        assertEquals(List.of(new ListenerConfig(Transport.UDP, "::1", 0)), c.listeners());
    }

    @Test
    void unknownTransportInYamlListNamesItsIndex() throws IOException {
        Path file = write("bad.yaml", "listen: [udp:127.0.0.1:5060, sctp:127.0.0.1:5060]\n");
        String message = fileFailure(file);
        assertTrue(message.startsWith("listen[1]: unknown transport \"sctp\""), message);
    }

    @ParameterizedTest(name = "{0}={1} is {2}")
    @CsvSource({
        "250ms, PT0.25S",
        "30s,   PT30S",
        "45,    PT45S",
        "5m,    PT5M",
        "1h,    PT1H",
    })
    void durationsAcceptUnitsAndBareSeconds(String text, Duration expected) throws ConfigException {
        assertEquals(expected, flags(Map.of("tcp.connectTimeout", List.of(text))).tcpConnectTimeout());
    }

    @ParameterizedTest(name = "location.cache {0} with db {1}: cached {2}")
    @CsvSource({"auto, '', true", "auto, jdbc:h2:mem:shared, false", "on, jdbc:h2:mem:shared, true", "off, '', false"})
    void theLocationCacheIsOnByDefaultOnlyForTheEmbeddedDatabase(String mode, String db, boolean cached)
            throws ConfigException {
        Map<String, List<String>> given = db.isEmpty() ? Map.of("location.cache", List.of(mode))
                : Map.of("location.cache", List.of(mode), "db", List.of(db));
        assertEquals(cached, flags(given).locationCached());
    }

    @ParameterizedTest(name = "{0}={1} is {2}")
    @CsvSource({"true, true", "on, true", "YES, true", "false, false", "off, false", "no, false"})
    void booleansAcceptTrueFalseOnOffYesNo(String text, boolean expected) throws ConfigException {
        assertEquals(expected, flags(Map.of("recordRoute", List.of(text))).recordRoute());
    }

    @Test
    void unknownFileKeyIsNamedWithTheClosestKnownKey() throws IOException {
        Path file = write("typo.yaml", "tcp:\n  idletimeout: 5m\n");
        String message = fileFailure(file);
        assertTrue(message.startsWith("tcp.idletimeout: unknown key in " + file), message);
        assertTrue(message.endsWith("(did you mean tcp.idleTimeout?)"), message);
    }

    @Test
    void indexedListKeysInPropertiesPointToTheCommaForm() throws IOException {
        Path file = write("old.properties", "listen.0=udp:127.0.0.1:5060\n");
        String message = fileFailure(file);
        assertTrue(message.startsWith("listen.0: unknown key"), message);
        assertTrue(message.contains("comma-separated"), message);
    }

    @ParameterizedTest(name = "{0}={1} is refused")
    @CsvSource({
        "sip.maxMessageBytes, 1023",
        "sip.maxMessageBytes, 16777217",
        "io.threads,          -1",
        "sip.workers,         0",
        "sip.queueCapacity,   0",
        "db.poolSize,         0",
        "db.connectTimeout,   100ms",
        "db.connectTimeout,   0",
        "db.connectTimeout,   61s",
        "db.probeInterval,    5ms",
        "db.probeInterval,    2m",
        "tcp.maxConnections,  -5",
        "tcp.idleTimeout,     0",
        "registrar.minExpires, 0s",
        "registrar.minExpires, 1500ms",
        "sip.workers,         many",
        "overload.queueThreshold, 0",
        "overload.maxTransactions, -1",
        "overload.maxHeapAfterGc, 101",
        "overload.retryAfter, 0",
        "overload.retryAfter, 1500ms",
        "overload.maxKeptBytes, 65535",
        "overload.maxQueuedBytes, 1000",
        "shutdown.maxDialogs, -1",
        "shutdown.dialogLifetime, 0",
        "tls.handshakeQueue,  0",
    })
    void valuesOutOfRangeNameTheKeyAndTheValue(String key, String value) {
        String message = failure(Map.of(key, List.of(value)));
        assertTrue(message.startsWith(key + ": \"" + value + "\""), message);
        assertTrue(message.contains("(expected"), message);
    }

    @Test
    void tlsDomainsAreCheckedAtStart() throws Exception {
        Path pem = write("a.pem", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
        Path key = write("a.key", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n");
        String entry = "a.example.com;cert=" + pem + ";key=" + key;
        String twice = failure(Map.of("listen", List.of("tls:127.0.0.1:5061"), "tls.cert", List.of(pem.toString()),
                "tls.key", List.of(key.toString()), "tls.domain", List.of(entry, entry.replace("a.example", "A.Example"))));
        assertTrue(twice.startsWith("tls.domain[1]: \"a.example.com\" is given twice"), twice);
        String missing = failure(Map.of("listen", List.of("tls:127.0.0.1:5061"), "tls.cert", List.of(pem.toString()),
                "tls.key", List.of(key.toString()), "tls.domain", List.of("b.example.com;cert=" + dir.resolve("none.pem")
                        + ";key=" + key)));
        assertTrue(missing.startsWith("tls.domain[0]: cannot read"), missing);
        String noListener = failure(Map.of("tls.domain", List.of(entry)));
        assertTrue(noListener.startsWith("tls.domain: given without a tls or wss listener"), noListener);
        String badName = failure(Map.of("tls.domain", List.of("a_b.example.com;cert=" + pem + ";key=" + key)));
        assertTrue(badName.startsWith("tls.domain"), badName);
        assertEquals(TlsConfig.UnknownServerName.REFUSE,
                flags(Map.of("tls.unknownServerName", List.of("refuse"))).tls().unknownServerName());
    }

    @Test
    void rangeEndsAreAccepted() throws ConfigException {
        assertEquals(1024, flags(Map.of("sip.maxMessageBytes", List.of("1024"))).maxMessageBytes());
        assertEquals(16 * 1024 * 1024, flags(Map.of("sip.maxMessageBytes", List.of("16777216"))).maxMessageBytes());
        assertEquals(0, flags(Map.of("io.threads", List.of("0"))).ioThreads());
        assertEquals(Duration.ZERO, flags(Map.of("shutdown.grace", List.of("0"))).shutdownGrace());
        assertEquals(Duration.ofMillis(250), flags(Map.of("db.connectTimeout", List.of("250ms"))).dbBreaker().connectTimeout());
        assertEquals(Duration.ofSeconds(60), flags(Map.of("db.connectTimeout", List.of("60s"))).dbBreaker().connectTimeout());
        assertEquals(Duration.ofMillis(10), flags(Map.of("db.probeInterval", List.of("10ms"))).dbBreaker().probeInterval());
    }

    @Test
    void overloadQueueThresholdThatFitsTheLaneQueueIsTaken() throws ConfigException {
        ServerConfig fits = flags(Map.of("sip.queueCapacity", List.of("100"), "overload.queueThreshold", List.of("100")));
        assertEquals(100, fits.overload().queueThreshold());
        assertEquals(Duration.ZERO, flags(Map.of("overload.maxQueueDelay", List.of("0"))).overload().maxQueueDelay());
    }

    @Test
    void missingFileIsNamed() {
        Path missing = dir.resolve("nowhere.yaml");
        String message = fileFailure(missing);
        assertTrue(message.contains(missing.toString()), message);
        assertTrue(message.contains("not found"), message);
    }

    @Test
    void unknownFileExtensionIsRefused() throws IOException {
        Path file = write("sipcrypt.toml", "mode = \"proxy\"\n");
        String message = fileFailure(file);
        assertTrue(message.contains(file.toString()) && message.contains(".yaml"), message);
    }

    @Test
    void malformedYamlNamesTheFile() throws IOException {
        Path file = write("broken.yaml", "tcp: [unclosed\n");
        String message = fileFailure(file);
        assertTrue(message.startsWith("config file " + file + ": not valid YAML"), message);
    }

    @Test
    void passwordIsMaskedInDescribe() throws ConfigException {
        ServerConfig c = flags(Map.of(
                "db.password", List.of("s3cret"),
                "db", List.of("jdbc:postgresql://db/sip?user=sip&password=hunter2&ssl=true")));
        String text = ConfigLoader.describe(c);
        assertTrue(text.contains("\ndb.password=<masked>\n"), text);
        assertTrue(text.contains("password=<masked>&ssl=true"), text);
        assertFalse(text.contains("s3cret"), text);
        assertFalse(text.contains("hunter2"), text);
    }

    @Test
    void describeHasOneLinePerKey() {
        List<String> lines = ConfigLoader.describe(ServerConfig.defaults()).lines().toList();
        assertEquals(ConfigLoader.settings().size(), lines.size());
        assertTrue(lines.contains("listen=udp:127.0.0.1:5060,tcp:127.0.0.1:5060"), lines.toString());
        assertTrue(lines.contains("tcp.idleTimeout=5m"), lines.toString());
    }

    @Test
    void routesDefaultToTheEffectiveTcpConnectionPattern() throws ConfigException {
        ServerConfig c = flags(Map.of(
                "tcp.connection", List.of("per-call"),
                "route", List.of("Example.com=10.0.0.2:5070;transport=tcp",
                        "other.org=10.0.0.3;connection=persistent"),
                "defaultRoute", List.of("10.0.0.9;transport=tcp")));
        assertEquals(List.of(
                new RouteConfig("example.com", "10.0.0.2", 5070, Transport.TCP, ConnectionPattern.PER_CALL),
                new RouteConfig("other.org", "10.0.0.3", 5060, Transport.UDP, ConnectionPattern.PERSISTENT)),
                c.routes());
        assertEquals(new RouteConfig(null, "10.0.0.9", 5060, Transport.TCP, ConnectionPattern.PER_CALL),
                c.defaultRoute());
    }

    @Test
    void routesWithoutTcpConnectionArePersistent() throws ConfigException {
        ServerConfig c = flags(Map.of("route", List.of("example.com=10.0.0.2:5060;transport=tcp")));
        assertEquals(ConnectionPattern.PERSISTENT, c.routes().get(0).connection());
        assertNull(c.defaultRoute());
    }

    @Test
    void sourceLimitsAllowLoopbackByDefaultAndNoneMeansNoException() throws ConfigException {
        LimitsConfig defaults = flags(Map.of()).limits();
        assertEquals(List.of(AddressBlock.parse("127.0.0.0/8"), AddressBlock.parse("::1")), defaults.allow());
        assertTrue(defaults.enabled());
        ServerConfig c = flags(Map.of("limits.allow", List.of("none"), "limits.requestsPerSecond", List.of("0"),
                "limits.authFailures", List.of("0")));
        assertEquals(List.of(), c.limits().allow());
        assertFalse(c.limits().enabled());
        assertEquals(List.of(AddressBlock.parse("192.0.2.0/24")),
                flags(Map.of("limits.allow", List.of("192.0.2.0/24"))).limits().allow());
        assertEquals("limits.allow[0]: \"pbx.example.com\" is not an address (expected an IP address or a CIDR"
                + " block, e.g. 192.0.2.10 or 10.0.0.0/8)", failure(Map.of("limits.allow", List.of("pbx.example.com"))));
        assertTrue(failure(Map.of("limits.burst", List.of("0"))).startsWith("limits.burst: \"0\" is out of range"));
        assertTrue(failure(Map.of("limits.banTime", List.of("0"))).startsWith("limits.banTime: \"0\" is out of range"));
    }

    @Test
    void callRecordsAreOffByDefaultAndTheJsonLinesSinkNeedsAFile() throws ConfigException {
        CdrConfig defaults = flags(Map.of()).cdr();
        assertFalse(defaults.enabled());
        assertEquals(10_000, defaults.queueSize());
        ServerConfig c = flags(Map.of("cdr.sink", List.of("jsonl"), "cdr.file", List.of("/var/log/sipcrypt/cdr.jsonl"),
                "cdr.queueSize", List.of("500")));
        assertEquals(CdrConfig.Sink.JSONL, c.cdr().sink());
        assertEquals(java.nio.file.Path.of("/var/log/sipcrypt/cdr.jsonl"), c.cdr().file());
        assertEquals(500, c.cdr().queueSize());
        assertEquals(CdrConfig.Sink.DATABASE, flags(Map.of("cdr.sink", List.of("database"))).cdr().sink());
        assertEquals("cdr.sink: unknown sink \"kafka\" (expected none, jsonl or database)",
                failure(Map.of("cdr.sink", List.of("kafka"))));
        assertTrue(failure(Map.of("cdr.sink", List.of("jsonl"))).startsWith("cdr.file: not set"),
                failure(Map.of("cdr.sink", List.of("jsonl"))));
        assertTrue(failure(Map.of("cdr.queueSize", List.of("0"))).startsWith("cdr.queueSize: \"0\" is out of range"));
    }

    @Test
    void everySettingHasOneKeyAndAKebabCaseOption() {
        // one setting per component (and the two presets), the auth, tls, database breaker, tcp limits, overload,
        // source limits, call records, http, routing, destinations and dns records' components counted one by one
        assertEquals(ServerConfig.class.getRecordComponents().length - 12 + AuthConfig.class.getRecordComponents().length
                + TlsConfig.class.getRecordComponents().length + DbBreakerConfig.class.getRecordComponents().length
                + TcpLimitsConfig.class.getRecordComponents().length
                + OverloadConfig.class.getRecordComponents().length
                + LimitsConfig.class.getRecordComponents().length
                + CdrConfig.class.getRecordComponents().length
                + HttpConfig.class.getRecordComponents().length
                + org.sipcrypt.server.transport.WebSocketLimits.class.getRecordComponents().length
                + RoutingConfig.class.getRecordComponents().length
                + DestinationsConfig.class.getRecordComponents().length
                + DnsConfig.class.getRecordComponents().length
                + 2, ConfigLoader.settings().size()); // tls.preset and auth.preset set several components at once
        Set<String> options = new HashSet<>();
        for (Setting s : ConfigLoader.settings()) {
            assertTrue(s.option().matches("--[a-z]+(-[a-z]+)*"), s.option());
            assertTrue(options.add(s.option()), s.option());
            assertFalse(s.description().isBlank(), s.key());
            assertFalse(s.defaultText().isBlank(), s.key());
        }
        assertEquals("--tcp-idle-timeout", Setting.TCP_IDLE_TIMEOUT.option());
        assertEquals("--db-pool-size", Setting.DB_POOL_SIZE.option());
        assertEquals("--sip-max-message-bytes", Setting.SIP_MAX_MESSAGE_BYTES.option());
    }

    @Test
    void wildcardListenAddressWithoutAdvertiseIsRefusedBecauseViaMustNameAReachableAddress() {
        String message = failure(Map.of("listen", List.of("udp:0.0.0.0:5060")));
        assertTrue(message.startsWith("listen[0]: "), message);
        assertTrue(message.contains("wildcard address 0.0.0.0 needs"), message);
        assertTrue(message.contains("udp:0.0.0.0:5060;advertise=sip.example.com"), message);
    }

    @Test
    void tcpFloodLimitsAreRead() throws Exception {
        ServerConfig c = ConfigLoader.load(null, Map.of("tcp.maxConnectionsPerSource", List.of("20"),
                "tcp.firstMessageTimeout", List.of("3s"), "tcp.messageTimeout", List.of("1500ms"),
                "tcp.maxPartialBytes", List.of("70000")));
        assertEquals(TcpLimitsConfig.defaults().toBuilder().maxConnectionsPerSource(20)
                .firstMessageTimeout(java.time.Duration.ofSeconds(3)).messageTimeout(java.time.Duration.ofMillis(1500))
                .maxPartialBytes(70_000).build(),
                c.tcpLimits());
    }

    @Test
    void httpIsOffByDefaultAndTakesHostPortAndItsBounds() throws Exception {
        assertFalse(ServerConfig.defaults().http().enabled());
        ServerConfig c = ConfigLoader.load(null, Map.of("http", List.of("127.0.0.1:9090"),
                "http.maxRequestBytes", List.of("4096"), "http.maxConnections", List.of("8"),
                "http.idleTimeout", List.of("5s"), "http.healthTimeout", List.of("500ms")));
        assertEquals(new HostPort("127.0.0.1", 9090), c.http().listen());
        assertEquals(4096, c.http().maxRequestBytes());
        assertEquals(8, c.http().maxConnections());
        assertEquals(Duration.ofSeconds(5), c.http().idleTimeout());
        assertEquals(Duration.ofMillis(500), c.http().healthTimeout());
        assertFalse(ConfigLoader.load(null, Map.of("http", List.of("off"))).http().enabled());
        assertEquals("--http-max-request-bytes", Setting.HTTP_MAX_REQUEST_BYTES.option());
    }

    @ParameterizedTest(name = "{0}={1} names its key")
    @CsvSource({
        "http,                 127.0.0.1",
        "http,                 127.0.0.1:70000",
        "http.maxRequestBytes, 10",
        "http.maxConnections,  0",
        "http.healthTimeout,   0",
        "http.idleTimeout,     soon",
    })
    void badHttpSettingsNameTheirKey(String key, String value) {
        String message = failure(Map.of(key, List.of(value)));
        assertTrue(message.startsWith(key + ": "), message);
    }
}
