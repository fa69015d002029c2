package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.sipcrypt.server.sip.LocalDomains;

/** The check in the branches of our Vias: only a branch written here, for that return path, is vouched for. */
class LoopDetectorTest {

    private static final byte[] KEY = "a branch key of thirty-two bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private final LoopDetector loops = new LoopDetector(new LocalDomains(List.of(), List.of("127.0.0.1"),
            List.of(5060)), KEY);

    @Test
    void aStatelessBranchIsVouchedForItsReturnPathOnly() {
        String back = LoopDetector.returnPath("127.0.0.1", "5062", "127.0.0.1", "40000", "z9hG4bK-1");
        String branch = loops.statelessBranch("sip:bob@127.0.0.1", "a", "b", "call-1", "1", List.of(), back);
        assertTrue(branch.startsWith(LoopDetector.PREFIX) && branch.endsWith(".s"), branch);
        assertEquals(branch, loops.statelessBranch("sip:bob@127.0.0.1", "a", "b", "call-1", "1", List.of(), back),
                "every retransmission gets the same branch");
        assertTrue(loops.vouchesFor(branch, back));
        assertTrue(loops.vouchesFor(branch.toUpperCase(Locale.ROOT).replace("Z9HG4BK-SC-", LoopDetector.PREFIX), back),
                "the check is read in any case");
        assertFalse(loops.vouchesFor(branch, LoopDetector.returnPath("127.0.0.2", "5062", null, "40000", "z9hG4bK-1")),
                "another destination");
        assertFalse(loops.vouchesFor(branch, LoopDetector.returnPath("127.0.0.1", "5062", "127.0.0.1", "40001", "z9hG4bK-1")),
                "another port");
        assertFalse(loops.vouchesFor(branch, LoopDetector.returnPath("127.0.0.1", "5062", "127.0.0.1", "40000",
                "z9hG4bK-2")), "another transaction of the same client: the key a final response is kept under");
    }

    @Test
    void aBranchWrittenUnderAnotherKeyOrAlteredIsNotVouchedFor() {
        String back = "127.0.0.1:5062|z9hg4bk-1";
        String branch = loops.statelessBranch("sip:bob@127.0.0.1", "a", "b", "call-1", "1", List.of(), back);
        LoopDetector other = new LoopDetector(new LocalDomains(List.of(), List.of("127.0.0.1"), List.of(5060)));
        assertFalse(other.vouchesFor(branch, back), "a restart draws a new key");
        char last = branch.charAt(branch.length() - 3);
        String altered = branch.substring(0, branch.length() - 3) + (last == '0' ? '1' : '0') + ".s";
        assertFalse(loops.vouchesFor(altered, back));
        for (String forged : List.of("z9hG4bK-sc-0123456789abcdef.s", "z9hG4bK-sc-0123456789abcdef.1",
                "z9hG4bK-sc-0123456789abcdef.1.0011223344556677", "z9hG4bK-sc-.s", "z9hG4bK-sc-", "z9hG4bK-other",
                "z9hG4bK-sc-x.0011223344556677.s")) {
            assertFalse(loops.vouchesFor(forged, back), forged);
        }
        assertFalse(loops.vouchesFor(null, back));
        assertFalse(loops.vouchesFor(branch, null));
    }
}
