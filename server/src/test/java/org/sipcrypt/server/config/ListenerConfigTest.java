package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.transport.Transport;

/** The {@code listen} setting: wildcard addresses with an advertised address, several per transport, and its errors. */
// the first load of a configuration loads the cipher-suite providers: seconds on a busy machine
@Timeout(60)
class ListenerConfigTest {

    @TempDir
    Path dir;

    private static ServerConfig listen(String... values) throws ConfigException {
        return ConfigLoader.load(null, Map.of("listen", Arrays.asList(values)));
    }

    private static String failure(String... values) {
        return assertThrows(ConfigException.class, () -> listen(values)).getMessage();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "tls:0.0.0.0:5061;advertise=sip.example.com:5061 | TLS | 0.0.0.0 | 5061 | sip.example.com | 5061",
        "udp:0.0.0.0:5060;advertise=sip.example.com | UDP | 0.0.0.0 | 5060 | sip.example.com | -1",
        "tcp:[::]:5060;advertise=[2001:db8::10]:15060 | TCP | :: | 5060 | 2001:db8::10 | 15060",
        "udp:127.0.0.1:5060;advertise=192.0.2.10:5070 | UDP | 127.0.0.1 | 5060 | 192.0.2.10 | 5070",
        "udp:0.0.0.0:5060; Advertise = SIP.Example.COM | UDP | 0.0.0.0 | 5060 | sip.example.com | -1",
        "udp:127.0.0.1:5060 | UDP | 127.0.0.1 | 5060 | | -1",
    })
    void parsesListenerWithOrWithoutAdvertisedAddress(String text, Transport transport, String host, int port,
                                                      String advertisedHost, int advertisedPort) {
        ListenerConfig l = ListenerConfig.parse(text);
        assertEquals(transport, l.transport());
        assertEquals(host, l.host());
        assertEquals(port, l.port());
        assertEquals(advertisedHost, l.advertisedHost());
        assertEquals(advertisedPort, l.advertisedPort());
        assertEquals(advertisedHost != null ? advertisedHost : host, l.sentByHost());
        assertEquals(advertisedPort > 0 ? advertisedPort : 5999, l.sentByPort(5999));
        assertEquals(l, ListenerConfig.parse(l.toString()), "toString parses back: " + l);
    }

    @Test
    void ipv6WildcardIsAWildcardInAnySpelling() {
        assertTrue(ListenerConfig.parse("udp:[::]:5060;advertise=sip.example.com").wildcard());
        assertTrue(ListenerConfig.parse("udp:[0:0:0:0:0:0:0:0]:5060;advertise=sip.example.com").wildcard());
        assertTrue(ListenerConfig.parse("udp:0.0.0.0:5060;advertise=sip.example.com").wildcard());
        assertFalse(ListenerConfig.parse("udp:[::1]:5060").wildcard());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "a wildcard without advertise | udp:0.0.0.0:5060"
            + " | listen[0]: wildcard address 0.0.0.0 needs the address peers reach",
        "an IPv6 wildcard without advertise | tcp:[::]:5060 | listen[0]: wildcard address :: needs",
        "advertise naming a wildcard | tls:0.0.0.0:5061;advertise=0.0.0.0:5061"
            + " | listen[0]: \"tls:0.0.0.0:5061;advertise=0.0.0.0:5061\": advertise=0.0.0.0:5061 names a wildcard address",
        "advertise naming the IPv6 wildcard | udp:0.0.0.0:5060;advertise=[::]"
            + " | listen[0]: \"udp:0.0.0.0:5060;advertise=[::]\": advertise=[::] names a wildcard address",
        "advertise without a value | udp:0.0.0.0:5060;advertise="
            + " | listen[0]: \"udp:0.0.0.0:5060;advertise=\": advertise has no value",
        "advertise with a bad port | udp:0.0.0.0:5060;advertise=sip.example.com:50x"
            + " | listen[0]: \"udp:0.0.0.0:5060;advertise=sip.example.com:50x\": advertise \"sip.example.com:50x\""
            + " has a port that is not a number",
        "advertise port 0 | udp:0.0.0.0:5060;advertise=sip.example.com:0"
            + " | listen[0]: \"udp:0.0.0.0:5060;advertise=sip.example.com:0\": advertise port 0 is not a port",
        "advertise with an unbracketed IPv6 address | udp:0.0.0.0:5060;advertise=2001:db8::1"
            + " | listen[0]: \"udp:0.0.0.0:5060;advertise=2001:db8::1\": advertise \"2001:db8::1\": write IPv6",
        "advertise with a host that is no host | udp:0.0.0.0:5060;advertise=sip_example.com"
            + " | listen[0]: advertised host \"sip_example.com\" is not a host name or IP address",
        "advertise with a dotted quad out of range | udp:0.0.0.0:5060;advertise=192.0.2.300"
            + " | listen[0]: advertised host \"192.0.2.300\" is not an IPv4 address",
        "an unknown parameter | udp:0.0.0.0:5060;advertize=sip.example.com"
            + " | listen[0]: \"udp:0.0.0.0:5060;advertize=sip.example.com\": unknown parameter",
        "advertise twice | udp:0.0.0.0:5060;advertise=a.example.com;advertise=b.example.com"
            + " | listen[0]: \"udp:0.0.0.0:5060;advertise=a.example.com;advertise=b.example.com\": advertise is given twice",
    })
    void malformedListenerNamesTheSettingAndWhatIsWrong(String rule, String text, String expectedStart) {
        String message = failure(text);
        assertTrue(message.startsWith(expectedStart), message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "the same socket twice | udp:127.0.0.1:5060 | udp:127.0.0.1:5060"
            + " | listen[1]: udp:127.0.0.1:5060 binds the same UDP address:port as listen[0] udp:127.0.0.1:5060",
        "tcp and tls on one port | tcp:127.0.0.1:5060 | tls:127.0.0.1:5060"
            + " | listen[1]: tls:127.0.0.1:5060 binds the same TCP address:port as listen[0] tcp:127.0.0.1:5060",
        "an address under a wildcard on its port | udp:0.0.0.0:5060;advertise=sip.example.com | udp:127.0.0.2:5060"
            + " | listen[1]: udp:127.0.0.2:5060 binds the same UDP address:port as listen[0]",
        "an IPv4 wildcard beside the dual-stack one | udp:[::]:5060;advertise=sip.example.com"
            + " | udp:0.0.0.0:5060;advertise=sip.example.com | listen[1]: udp:0.0.0.0:5060;advertise=sip.example.com"
            + " binds the same UDP address:port as listen[0]",
    })
    void twoListenersOnOneSocketAreRefused(String rule, String first, String second, String expectedStart) {
        String message = failure(first, second);
        assertTrue(message.startsWith(expectedStart), message);
    }

    @Test
    void severalListenersPerTransportAreAccepted() throws ConfigException {
        ServerConfig c = listen("udp:127.0.0.1:5060", "udp:127.0.0.2:5060", "udp:127.0.0.1:5062", "tcp:127.0.0.1:5060",
                "udp:[::1]:5060", "udp:127.0.0.1:0", "udp:127.0.0.1:0");
        assertEquals(7, c.listeners().size());
        // UDP and TCP are separate sockets; two ephemeral ports are two sockets
        assertEquals(List.of("udp:127.0.0.1:5060", "udp:127.0.0.2:5060", "udp:127.0.0.1:5062", "tcp:127.0.0.1:5060",
                "udp:[::1]:5060", "udp:127.0.0.1:0", "udp:127.0.0.1:0"),
                c.listeners().stream().map(ListenerConfig::toString).toList());
    }

    @Test
    void realmDefaultsToTheFirstListenersAdvertisedHost() throws ConfigException {
        assertEquals("sip.example.com", listen("udp:0.0.0.0:5060;advertise=sip.example.com:5080",
                "tcp:127.0.0.1:5060").effectiveRealm());
        assertEquals("127.0.0.1", listen("udp:127.0.0.1:5060", "tcp:0.0.0.0:5060;advertise=sip.example.com")
                .effectiveRealm());
    }

    @Test
    void configFilesTakeTheSameSyntax() throws IOException, ConfigException {
        Path yaml = Files.writeString(dir.resolve("s.yaml"), "listen:\n"
                + "  - \"udp:0.0.0.0:5060;advertise=sip.example.com:5060\"\n"
                + "  - \"tcp:[::]:5061;advertise=sip.example.com\"\n");
        Path properties = Files.writeString(dir.resolve("s.properties"),
                "listen=udp:0.0.0.0:5060;advertise=sip.example.com:5060,tcp:[::]:5061;advertise=sip.example.com\n");
        for (Path file : List.of(yaml, properties)) {
            ServerConfig c = ConfigLoader.load(file, Map.of());
            assertEquals(List.of(ListenerConfig.parse("udp:0.0.0.0:5060;advertise=sip.example.com:5060"),
                    ListenerConfig.parse("tcp:[::]:5061;advertise=sip.example.com")), c.listeners(), file.toString());
        }
        Path bad = Files.writeString(dir.resolve("bad.properties"), "listen=udp:0.0.0.0:5060;advertise=0.0.0.0\n");
        String message = assertThrows(ConfigException.class, () -> ConfigLoader.load(bad, Map.of())).getMessage();
        assertTrue(message.startsWith("listen[0]: "), message);
        assertTrue(message.contains("names a wildcard address"), message);
    }

    @Test
    void advertisedPortWithoutHostIsAProgrammingError() {
        assertThrows(IllegalArgumentException.class, () -> new ListenerConfig(Transport.UDP, "127.0.0.1", 5060, null, 5070));
        assertNull(new ListenerConfig(Transport.UDP, "127.0.0.1", 5060).advertisedHost());
    }
}
