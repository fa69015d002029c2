package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.RevokingCa;
import org.sipcrypt.server.testing.TestOcspResponder;

/**
 * Mutated OCSP responses (bytes changed, cut, inserted, length octets broken) fed to
 * {@link OcspResponses#read}: every input reads as an answer (good, revoked, unknown or error), none
 * throws out or hangs, and a mutation that still reads as good or revoked says what the signed
 * original said. Seeds: a good response signed by the issuer, and a revoked one signed by a
 * delegated responder whose certificate travels with it. Inputs per seed:
 * {@code -Dsipcrypt.fuzz.ocsp.inputs} (2,000 by default, in every build).
 */
@Timeout(120)
class OcspResponsesFuzzTest {

    @TempDir
    Path dir;

    @Test
    void mutatedResponsesAlwaysReadAsAnAnswer() throws Exception {
        RevokingCa ca = RevokingCa.create("OCSP fuzz CA");
        X509Certificate good = ca.client("good", dir, "good");
        X509Certificate revoked = ca.client("revoked", dir, "revoked");
        X509Certificate delegate = ca.responder("fuzz responder", dir, "delegate", true);
        TestOcspResponder responder = TestOcspResponder.start(ca.certificate(), ca.privateKey());
        responder.close();
        byte[] goodSeed = responder.respond(OcspResponses.request(good, ca.certificate(), null));
        responder.revoke(revoked);
        responder.signAs(delegate, PemFiles.readPrivateKey(dir.resolve("delegate-key.pem")), delegate);
        byte[] revokedSeed = responder.respond(OcspResponses.request(revoked, ca.certificate(), null));
        int inputs = Integer.getInteger("sipcrypt.fuzz.ocsp.inputs", 2_000);
        fuzz(goodSeed, good, ca.certificate(), PeerRevocation.Result.GOOD, inputs, 6960L);
        fuzz(revokedSeed, revoked, ca.certificate(), PeerRevocation.Result.REVOKED, inputs, 8954L);
    }

    private static void fuzz(byte[] seed, X509Certificate cert, X509Certificate issuer, PeerRevocation.Result original,
                             int inputs, long randomSeed) {
        assertEquals(original, OcspResponses.read(seed, cert, issuer, null, Instant.now(), Duration.ofHours(1)).status());
        Random random = new Random(randomSeed);
        int refused = 0;
        for (int i = 0; i < inputs; i++) {
            byte[] in = mutate(seed, random);
            OcspAnswer a = OcspResponses.read(in, cert, issuer, null, Instant.now(), Duration.ofHours(1));
            assertNotNull(a, "input " + i);
            if (a.status() == PeerRevocation.Result.ERROR) {
                refused++;
            } else {
                // what still verifies kept the signed part whole: it cannot say anything else
                assertEquals(original, a.status(), "input " + i + ": " + a);
            }
        }
        assertTrue(refused > inputs / 2, "most mutations are refused: " + refused + " of " + inputs);
    }

    private static byte[] mutate(byte[] seed, Random random) {
        byte[] b = seed.clone();
        switch (random.nextInt(4)) {
            case 0 -> {
                for (int n = 1 + random.nextInt(8); n > 0; n--) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                }
            }
            case 1 -> b = Arrays.copyOf(b, random.nextInt(b.length));
            case 2 -> {
                int at = random.nextInt(b.length);
                byte[] out = new byte[b.length + 1 + random.nextInt(16)];
                System.arraycopy(b, 0, out, 0, at);
                for (int k = at; k < at + out.length - b.length; k++) {
                    out[k] = (byte) random.nextInt(256);
                }
                System.arraycopy(b, at, out, at + out.length - b.length, b.length - at);
                b = out;
            }
            default -> {
                // a length octet near the start broken: the ASN.1 reader's bounds
                int at = random.nextInt(Math.min(b.length, 64));
                b[at] = (byte) (random.nextBoolean() ? 0x84 : 0xff);
            }
        }
        return b;
    }
}
