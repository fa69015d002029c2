package org.sipcrypt.server.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.codec.dns.DnsRecordType;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.config.DnsConfig;
import org.sipcrypt.server.config.HostPort;
import org.sipcrypt.server.testing.TestDnsServer;
import org.sipcrypt.server.transport.Transport;

/** RFC 3263 resolution against a DNS server the test runs on loopback. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SipServerLocatorTest {

    private final AtomicLong nanos = new AtomicLong();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private TestDnsServer dns;
    private SipServerLocator locator;

    @BeforeEach
    void startDns() throws Exception {
        dns = TestDnsServer.start("127.0.0.1");
    }

    @AfterEach
    void stop() {
        if (locator != null) {
            locator.close();
        }
        dns.close();
    }

    private SipServerLocator locator(Set<Transport> transports, Duration timeout, Duration cacheMaxTtl) {
        DnsConfig config = new DnsConfig.Builder().servers(List.of(HostPort.parse(dns.hostPort(), -1)))
                .timeout(timeout).cacheMaxTtl(cacheMaxTtl).build();
        locator = new SipServerLocator(config, transports, d -> d.address().getAddress().getAddress().length == 4,
                registry, nanos::get, new SplittableRandom(7), (name, types) -> null);
        return locator;
    }

    private SipServerLocator locator() {
        return locator(Set.of(Transport.UDP, Transport.TCP), Duration.ofSeconds(5), Duration.ofMinutes(5));
    }

    private static List<String> texts(CompletableFuture<List<Destination>> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS).stream().map(Destination::toString).toList();
    }

    private ResolutionFailure failure(CompletableFuture<List<Destination>> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(ResolutionFailure.class, e.getCause());
    }

    private double count(String result) {
        var c = registry.find("dns.resolutions").tag("result", result).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void naptrLeadsToSrvAndSrvToAddressesInOrderAndPreference() throws Exception {
        dns.naptr("example.test", 20, 10, "s", "SIP+D2U", "", "_sip._udp.example.test", 300)
                .naptr("example.test", 10, 10, "s", "SIP+D2T", "", "_sip._tcp.example.test", 300)
                .naptr("example.test", 5, 10, "s", "SIPS+D2T", "", "_sips._tcp.example.test", 300)
                .srv("_sip._tcp.example.test", 10, 0, 5070, "tcp1.example.test", 300)
                .srv("_sip._udp.example.test", 10, 0, 5080, "udp1.example.test", 300)
                .srv("_sips._tcp.example.test", 10, 0, 5061, "tls1.example.test", 300)
                .a("tcp1.example.test", "127.0.0.2", 300)
                .a("udp1.example.test", "127.0.0.3", 300)
                .a("tls1.example.test", "127.0.0.4", 300);
        // no TLS listener: SIPS+D2T is left out though its order comes first
        assertEquals(List.of("tcp 127.0.0.2:5070", "udp 127.0.0.3:5080"),
                texts(locator().locate("example.test", -1, null, false)));
        assertEquals(0, dns.queries("_sips._tcp.example.test", DnsRecordType.SRV));
    }

    @Test
    void withoutNaptrSrvOfEachTransportIsAskedThenAddressesOnTheDefaultPort() throws Exception {
        dns.srv("_sip._tcp.srv.test", 10, 0, 5090, "b.srv.test", 60).a("b.srv.test", "127.0.0.5", 60)
                .a("plain.test", "127.0.0.6", 60);
        SipServerLocator l = locator();
        assertEquals(List.of("tcp 127.0.0.5:5090"), texts(l.locate("srv.test", -1, null, false)));
        assertEquals(1, dns.queries("srv.test", DnsRecordType.NAPTR));
        assertEquals(1, dns.queries("_sip._udp.srv.test", DnsRecordType.SRV));
        assertEquals(List.of("udp 127.0.0.6:5060"), texts(l.locate("plain.test", -1, null, false)));
    }

    @Test
    void srvRecordsAreTriedByPriorityThenWeight() throws Exception {
        dns.srv("_sip._tcp.prio.test", 20, 0, 5003, "c.prio.test", 60)
                .srv("_sip._tcp.prio.test", 10, 50, 5002, "b.prio.test", 60)
                .srv("_sip._tcp.prio.test", 5, 10, 5001, "a.prio.test", 60)
                .srv("_sip._tcp.prio.test", 10, 50, 5004, "d.prio.test", 60)
                .a("a.prio.test", "127.0.0.11", 60).a("b.prio.test", "127.0.0.12", 60)
                .a("c.prio.test", "127.0.0.13", 60).a("d.prio.test", "127.0.0.14", 60);
        List<String> hops = texts(locator().locate("prio.test", -1, Transport.TCP, false));
        assertEquals(4, hops.size(), hops.toString());
        assertEquals("tcp 127.0.0.11:5001", hops.get(0));
        assertEquals(Set.of("tcp 127.0.0.12:5002", "tcp 127.0.0.14:5004"), Set.copyOf(hops.subList(1, 3)));
        assertEquals("tcp 127.0.0.13:5003", hops.get(3));
    }

    @Test
    void weightsDecideHowOftenARecordComesFirst() {
        List<SrvRecord> records = List.of(new SrvRecord(1, 90, 1, "heavy", 60), new SrvRecord(1, 10, 2, "light", 60),
                new SrvRecord(0, 0, 3, "first", 60));
        SplittableRandom random = new SplittableRandom(2782);
        int heavyFirst = 0;
        for (int i = 0; i < 2_000; i++) {
            List<SrvRecord> o = SrvRecord.ordered(records, random);
            assertEquals("first", o.get(0).target());
            heavyFirst += o.get(1).target().equals("heavy") ? 1 : 0;
        }
        assertTrue(heavyFirst > 1_600 && heavyFirst < 1_950, "heavy first in " + heavyFirst + " of 2000");
    }

    @Test
    void aPortGivenSkipsNaptrAndSrv() throws Exception {
        dns.naptr("port.test", 10, 10, "s", "SIP+D2T", "", "_sip._tcp.port.test", 60)
                .srv("_sip._tcp.port.test", 10, 0, 5070, "other.test", 60).a("port.test", "127.0.0.7", 60);
        assertEquals(List.of("udp 127.0.0.7:5099"), texts(locator().locate("port.test", 5099, null, false)));
        assertEquals(List.of("tcp 127.0.0.7:5098"), texts(locator.locate("port.test", 5098, Transport.TCP, false)));
        assertEquals(0, dns.queries("port.test", DnsRecordType.NAPTR));
        assertEquals(0, dns.queries("_sip._tcp.port.test", DnsRecordType.SRV));
    }

    @Test
    void ipAddressesNeverTouchDns() throws Exception {
        SipServerLocator l = locator();
        assertEquals(List.of("udp 127.0.0.9:5060"), texts(l.locate("127.0.0.9", -1, null, false)));
        assertEquals(List.of("tls [0:0:0:0:0:0:0:1]:5061"), texts(l.locate("[::1]", -1, null, true)));
        assertEquals(List.of("tcp 10.1.2.3:7000"), texts(l.locate("10.1.2.3", 7000, Transport.TCP, false)));
        assertTrue(SipServerLocator.isAddress("::1"));
        assertFalse(SipServerLocator.isAddress("host.test"));
        assertEquals(0, dns.queries());
    }

    @Test
    void answersAreKeptForTheirTtlAndAskedAgainAfter() throws Exception {
        dns.a("ttl.test", "127.0.0.8", 30);
        SipServerLocator l = locator();
        assertEquals(List.of("udp 127.0.0.8:5060"), texts(l.locate("ttl.test", 5060, null, false)));
        assertEquals(1, dns.queries("ttl.test", DnsRecordType.A));
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(29));
        assertEquals(List.of("udp 127.0.0.8:5060"), texts(l.locate("TTL.test", 5060, null, false)));
        assertEquals(1, dns.queries("ttl.test", DnsRecordType.A));
        assertEquals(1.0, count("cached"));
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(2));
        assertEquals(List.of("udp 127.0.0.8:5060"), texts(l.locate("ttl.test", 5060, null, false)));
        assertEquals(2, dns.queries("ttl.test", DnsRecordType.A));
        assertEquals(2.0, count("resolved"));
        assertEquals(2, registry.find("dns.resolution.duration").timer().count());
    }

    @Test
    void cacheMaxTtlCapsARecordsTtl() throws Exception {
        dns.a("long.test", "127.0.0.8", 86_400);
        SipServerLocator l = locator(Set.of(Transport.UDP), Duration.ofSeconds(5), Duration.ofSeconds(10));
        texts(l.locate("long.test", 5060, null, false));
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(11));
        texts(l.locate("long.test", 5060, null, false));
        assertEquals(2, dns.queries("long.test", DnsRecordType.A));
    }

    @Test
    void aServerThatNeverAnswersTimesOutWithoutBlockingTheCaller() throws Exception {
        dns.silent(true);
        SipServerLocator l = locator(Set.of(Transport.UDP, Transport.TCP), Duration.ofSeconds(1), Duration.ofMinutes(5));
        CompletableFuture<List<Destination>> f = l.locate("silent.test", -1, null, false);
        // locate returned without waiting: the server has not answered, and its 1 s have not passed
        assertFalse(f.isDone());
        ResolutionFailure failure = failure(f);
        assertEquals(ResolutionFailure.Reason.TIMEOUT, failure.reason());
        assertTrue(failure.getMessage().contains("silent.test"), failure.getMessage());
        assertEquals(1.0, count("timeout"));
        // a failure is not kept: the next lookup asks again
        dns.silent(false);
        dns.a("silent.test", "127.0.0.10", 60);
        assertEquals(List.of("udp 127.0.0.10:5060"), texts(l.locate("silent.test", 5060, null, false)));
    }

    @Test
    void aNameOfTheHostsFileIsNeverAskedOfDns() throws Exception {
        DnsConfig config = new DnsConfig.Builder().servers(List.of(HostPort.parse(dns.hostPort(), -1))).build();
        locator = new SipServerLocator(config, Set.of(Transport.UDP, Transport.TCP), d -> true, registry, nanos::get,
                new SplittableRandom(7), (name, types) -> name.equals("pbx.lan") ? java.net.InetAddress.getLoopbackAddress() : null);
        assertEquals(List.of("udp 127.0.0.1:5060"), texts(locator.locate("pbx.lan", -1, null, false)));
        assertEquals(List.of("tcp 127.0.0.1:5070"), texts(locator.locate("pbx.lan", 5070, Transport.TCP, false)));
        assertEquals(0, dns.queries());
    }

    @Test
    void aNameWithoutRecordsFailsAsNotFound() {
        ResolutionFailure failure = failure(locator().locate("nowhere.test", -1, null, false));
        assertEquals(ResolutionFailure.Reason.NOT_FOUND, failure.reason());
        assertEquals(1.0, count("not_found"));
    }

    @Test
    void addressesTheServerCannotSendToFailAsNoUsableHop() {
        dns.aaaa("six.test", "::1", 60);
        ResolutionFailure failure = failure(locator().locate("six.test", 5060, null, false));
        assertEquals(ResolutionFailure.Reason.NO_USABLE_HOP, failure.reason());
    }

    @Test
    void aSipsUriAsksSipsSrvOnly() throws Exception {
        dns.srv("_sips._tcp.secure.test", 10, 0, 5061, "tls.secure.test", 60).a("tls.secure.test", "127.0.0.4", 60)
                .srv("_sip._udp.secure.test", 10, 0, 5060, "udp.secure.test", 60);
        SipServerLocator l = locator(Set.of(Transport.UDP, Transport.TLS), Duration.ofSeconds(5), Duration.ofMinutes(5));
        assertEquals(List.of("tls 127.0.0.4:5061"), texts(l.locate("secure.test", -1, null, true)));
        assertEquals(0, dns.queries("_sip._udp.secure.test", DnsRecordType.SRV));
    }
}
