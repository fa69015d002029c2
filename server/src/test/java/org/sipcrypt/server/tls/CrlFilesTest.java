package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509CRL;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.RevokingCa;

/** Reading CRL files, PEM and DER; and a seeded fuzz: mutated bytes get a clean refusal, never anything else. */
@Timeout(60)
class CrlFilesTest {

    @TempDir
    Path dir;

    /** One CA and two issued certificates for every case: RSA key generation is the slow part. */
    static RevokingCa ca;
    static X509CRL listing;

    @BeforeAll
    static void makeCa(@TempDir Path keys) throws Exception {
        ca = RevokingCa.create("CRL files test CA");
        listing = ca.crl(List.of(ca.client("y", keys, "y"), ca.client("z", keys, "z")), Duration.ofHours(1));
    }

    @Test
    void readsDerAndPemWithSeveralLists() throws Exception {
        X509CRL crlA = listing;
        X509CRL crlB = ca.crl(List.of(), Duration.ofHours(1));
        Path der = Files.write(dir.resolve("a.der"), crlA.getEncoded());
        assertEquals(List.of(crlA), CrlFiles.read(der));
        Path pemA = dir.resolve("a.pem");
        Path pemB = dir.resolve("b.pem");
        RevokingCa.writePem(pemA, crlA);
        RevokingCa.writePem(pemB, crlB);
        Path both = Files.writeString(dir.resolve("both.pem"), Files.readString(pemA) + Files.readString(pemB));
        assertEquals(List.of(crlA, crlB), CrlFiles.read(both));
    }

    @Test
    void emptyAndForeignFilesAreRefused() throws Exception {
        Path empty = Files.write(dir.resolve("empty.crl"), new byte[0]);
        assertTrue(assertThrows(IOException.class, () -> CrlFiles.read(empty)).getMessage().startsWith(
                "tls.crl \"" + empty + "\": "));
        Path cert = dir.resolve("cert.pem");
        ca.writeCertificate(cert);
        assertThrows(IOException.class, () -> CrlFiles.read(cert));
    }

    @Test
    void mutatedListsGetACleanRefusal() throws Exception {
        X509CRL crl = listing;
        Path pemFile = dir.resolve("fuzz.pem");
        RevokingCa.writePem(pemFile, crl);
        byte[][] seeds = {crl.getEncoded(), Files.readAllBytes(pemFile)};
        Random random = new Random(43_3L);
        int parsed = 0;
        int refused = 0;
        for (int i = 0; i < 4_000; i++) {
            byte[] in = mutate(seeds[i % 2], random);
            try {
                List<X509CRL> out = CrlFiles.parse(in, "fuzz input " + i);
                assertTrue(!out.isEmpty());
                parsed++;
            } catch (IOException e) {
                assertTrue(e.getMessage().startsWith("fuzz input " + i + ": "), e.getMessage());
                refused++;
            }
        }
        assertTrue(refused > 1_000, "most mutations are refused: " + refused + " of 4000 (" + parsed + " parsed)");
    }

    private static byte[] mutate(byte[] seed, Random random) {
        byte[] b = seed.clone();
        switch (random.nextInt(5)) {
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
            case 3 -> {
                // a length byte of the DER structure made huge or tiny
                int at = random.nextInt(Math.min(b.length, 64));
                b[at] = (byte) (random.nextBoolean() ? 0xff : 0x84);
            }
            default -> {
                byte[] junk = new byte[random.nextInt(64)];
                random.nextBytes(junk);
                String text = new String(b, StandardCharsets.ISO_8859_1);
                int at = random.nextInt(text.length());
                b = (text.substring(0, at) + new String(junk, StandardCharsets.ISO_8859_1) + text.substring(at))
                        .getBytes(StandardCharsets.ISO_8859_1);
            }
        }
        return b;
    }
}
