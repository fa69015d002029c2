package org.sipcrypt.server.cdr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.cdr.CallRecord.EndedBy;

/** How a call's events make its one record. */
@Timeout(10)
class CallRecordsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<CallRecord> out = new ArrayList<>();
    private Instant now = Instant.parse("2026-11-29T10:00:00Z");

    /** A clock the test moves by hand. */
    private final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    private CallRecords records(int maxOpen, boolean seesEnds) {
        return new CallRecords(clock, maxOpen, seesEnds, out::add, registry);
    }

    private CallRecords.Call start(CallRecords r, String callId) {
        return r.started(callId, "alice-tag", "sip:alice@example.com", "sip:bob@example.com", "alice", "tls",
                "TLS_AES_128_GCM_SHA256");
    }

    @Test
    void anAnsweredCallEndedByTheCallerHasItsTimesAndDuration() {
        CallRecords r = records(10, true);
        CallRecords.Call c = start(r, "c1");
        now = now.plusSeconds(2);
        r.answered(c, 200, "udp", null);
        now = now.plusSeconds(30);
        r.byeRelayed("c1", "alice-tag");
        assertEquals(1, out.size());
        CallRecord rec = out.get(0);
        assertEquals("c1", rec.callId());
        assertEquals(Instant.parse("2026-11-29T10:00:00Z"), rec.start());
        assertEquals(Instant.parse("2026-11-29T10:00:02Z"), rec.answer());
        assertEquals(Instant.parse("2026-11-29T10:00:32Z"), rec.end());
        assertEquals(Duration.ofSeconds(30), rec.duration());
        assertEquals(200, rec.status());
        assertEquals(EndedBy.CALLER, rec.endedBy());
        assertEquals("alice", rec.user());
        assertEquals("tls", rec.inTransport());
        assertEquals("TLS_AES_128_GCM_SHA256", rec.inCipher());
        assertEquals("udp", rec.outTransport());
        assertEquals(0, r.size());
    }

    @Test
    void aByeFromTheCalleeIsTheCalleesEndAndItsRetransmissionChangesNothing() {
        CallRecords r = records(10, true);
        r.answered(start(r, "c1"), 200, "udp", null);
        r.byeRelayed("c1", "bob-tag");
        r.byeRelayed("c1", "bob-tag");
        assertEquals(1, out.size());
        assertEquals(EndedBy.CALLEE, out.get(0).endedBy());
    }

    @Test
    void failuresSayWhoEndedTheCall() {
        CallRecords r = records(10, true);
        r.failed(start(r, "busy"), 486, true);
        CallRecords.Call cancelled = start(r, "cancelled");
        r.cancelled(cancelled);
        r.failed(cancelled, 487, true);
        r.failed(start(r, "timeout"), 408, false);
        r.failed(start(r, "unknown-user"), 404, false);
        assertEquals(List.of(EndedBy.CALLEE, EndedBy.CALLER, EndedBy.TIMEOUT, EndedBy.NONE),
                out.stream().map(CallRecord::endedBy).toList());
        assertEquals(List.of(486, 487, 408, 404), out.stream().map(CallRecord::status).toList());
        for (CallRecord rec : out) {
            assertNull(rec.answer());
            assertNotNull(rec.end());
            assertNull(rec.duration());
        }
    }

    @Test
    void aFailureAfterTheAnswerAndASecondAnswerChangeNothing() {
        CallRecords r = records(10, true);
        CallRecords.Call c = start(r, "c1");
        r.answered(c, 200, "udp", null);
        r.answered(c, 200, "tcp", null);
        r.failed(c, 486, true);
        assertTrue(out.isEmpty());
        r.byeRelayed("c1", "alice-tag");
        assertEquals("udp", out.get(0).outTransport());
        assertEquals(200, out.get(0).status());
    }

    @Test
    void aSpiralOfAnOpenCallIsNotRecordedTwice() {
        CallRecords r = records(10, true);
        assertNotNull(start(r, "c1"));
        assertNull(start(r, "c1"));
        assertEquals(1, r.size());
    }

    @Test
    void aForgottenDialogEndsItsCallAsUnknown() {
        CallRecords r = records(10, true);
        r.answered(start(r, "c1"), 200, "udp", null);
        r.forgotten("c1");
        assertEquals(1, out.size());
        assertEquals(EndedBy.UNKNOWN, out.get(0).endedBy());
        assertNull(out.get(0).end());
        assertNull(out.get(0).duration());
        r.byeRelayed("c1", "alice-tag");
        assertEquals(1, out.size());
    }

    @Test
    void openCallsAreBoundedTheOldestFinishedAsUnknown() {
        CallRecords r = records(2, true);
        start(r, "c1");
        start(r, "c2");
        start(r, "c3");
        assertEquals(2, r.size());
        assertEquals(1, out.size());
        assertEquals("c1", out.get(0).callId());
        assertEquals(EndedBy.UNKNOWN, out.get(0).endedBy());
        assertEquals(2.0, registry.get("cdr.calls.open").gauge().value());
    }

    @Test
    void withoutRecordRouteAnAnsweredCallIsFinishedAtOnce() {
        CallRecords r = records(10, false);
        r.answered(start(r, "c1"), 200, "udp", null);
        assertEquals(1, out.size());
        assertEquals(EndedBy.UNKNOWN, out.get(0).endedBy());
        assertEquals(0, r.size());
    }
}
