package org.sipcrypt.server.sip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.location.Binding;
import org.sipcrypt.server.testing.ManualClock;
import org.sipcrypt.server.transport.CallConnections;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.Transport;

/**
 * What {@code sip.flows.open{transport}} counts: bindings a request reaches over their flow now
 * (TCP and TLS while the connection is open; UDP behind a NAT or outbound), each address-of-record
 * as its last REGISTER left it, lapsed bindings not at all, and no more addresses-of-record than
 * the bound.
 */
@Timeout(10)
class RegisteredFlowsTest {

    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 5060);
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    /** The connections open: what the transport would answer. */
    private final Set<Flow> open = ConcurrentHashMap.newKeySet();
    private final CallConnections calls = new CallConnections() {
        @Override
        public void releaseCall(String callId) {
        }

        @Override
        public boolean flowOpen(Flow flow) {
            return !flow.transport().reliable() || open.contains(flow);
        }
    };

    private static Flow flow(Transport t, int port, long connection) {
        return new Flow(t, LOCAL, new InetSocketAddress("192.0.2.7", port), connection);
    }

    private Binding binding(String aor, String contact, Flow flow, boolean nat, Duration lifetime) {
        return new Binding(aor, contact, contact, clock.instant().plus(lifetime), "call-" + contact, 1, -1,
                "udp:192.0.2.7:1", flow == null ? null : flow.text(), nat, null, 0);
    }

    @Test
    void countsBindingsReachedOverTheirFlowByTransport() {
        RegisteredFlows flows = new RegisteredFlows(calls, clock, 100);
        Flow tcp = flow(Transport.TCP, 40000, 7);
        Flow closedTls = flow(Transport.TLS, 40001, 8);
        open.add(tcp);
        flows.registered("sip:bob@example.com", List.of(
                binding("sip:bob@example.com", "sip:bob@192.0.2.7:5060;transport=tcp", tcp, false, Duration.ofMinutes(5)),
                binding("sip:bob@example.com", "sip:bob@192.0.2.7:5061;transport=tls", closedTls, true, Duration.ofMinutes(5)),
                binding("sip:bob@example.com", "sip:bob@10.0.0.2", flow(Transport.UDP, 1024, 0), true, Duration.ofMinutes(5)),
                // UDP without a NAT: reached at its Contact, not over a flow
                binding("sip:bob@example.com", "sip:bob@192.0.2.7", flow(Transport.UDP, 5060, 0), false, Duration.ofMinutes(5)),
                binding("sip:bob@example.com", "sip:bob@192.0.2.8", null, false, Duration.ofMinutes(5))));
        assertEquals(1, flows.open(Transport.TCP));
        assertEquals(0, flows.open(Transport.TLS));
        assertEquals(1, flows.open(Transport.UDP));
        open.add(closedTls);
        assertEquals(1, flows.open(Transport.TLS));
        open.remove(tcp);
        assertEquals(0, flows.open(Transport.TCP));
    }

    @Test
    void aRegisterReplacesWhatItsAddressOfRecordHeldAndLapsedBindingsGo() {
        RegisteredFlows flows = new RegisteredFlows(calls, clock, 100);
        Flow first = flow(Transport.TCP, 40000, 7);
        Flow second = flow(Transport.TCP, 40002, 9);
        open.add(first);
        open.add(second);
        flows.registered("sip:bob@example.com", List.of(binding("sip:bob@example.com", "sip:bob@192.0.2.7;transport=tcp",
                first, false, Duration.ofMinutes(5))));
        flows.registered("sip:bob@example.com", List.of(binding("sip:bob@example.com", "sip:bob@192.0.2.7;transport=tcp",
                second, false, Duration.ofSeconds(30))));
        assertEquals(1, flows.open(Transport.TCP));
        flows.registered("sip:alice@example.com", List.of(binding("sip:alice@example.com",
                "sip:alice@192.0.2.7;transport=tcp", first, false, Duration.ofMinutes(5))));
        assertEquals(2, flows.open(Transport.TCP));
        clock.advance(Duration.ofSeconds(31));
        assertEquals(1, flows.open(Transport.TCP));
        assertEquals(1, flows.size(), "bob's lapsed binding is forgotten");
        flows.registered("sip:alice@example.com", List.of());
        assertEquals(0, flows.open(Transport.TCP));
        assertEquals(0, flows.size());
    }

    @Test
    void noMoreAddressesOfRecordThanTheBoundAreHeld() {
        RegisteredFlows flows = new RegisteredFlows(calls, clock, 2);
        Flow tcp = flow(Transport.TCP, 40000, 7);
        open.add(tcp);
        for (String user : new String[] {"a", "b", "c"}) {
            String aor = "sip:" + user + "@example.com";
            flows.registered(aor, List.of(binding(aor, "sip:" + user + "@192.0.2.7;transport=tcp", tcp, false,
                    Duration.ofSeconds(user.equals("a") ? 10 : 300))));
        }
        assertEquals(2, flows.size());
        clock.advance(Duration.ofSeconds(11));
        flows.registered("sip:c@example.com", List.of(binding("sip:c@example.com", "sip:c@192.0.2.7;transport=tcp", tcp,
                false, Duration.ofSeconds(300))));
        assertEquals(2, flows.size(), "a's lapsed entry made room for c");
        assertEquals(2, flows.open(Transport.TCP));
    }
}
