package org.sipcrypt.jmh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reading {@code openssl speed} output, from text openssl 3.0 printed (under
 * {@code src/test/resources/openssl/}); and the answer when there is no openssl to run.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class OpensslSpeedTest {

    private static String text(String name) throws IOException {
        try (InputStream in = OpensslSpeedTest.class.getResourceAsStream("/openssl/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void cipherFigureIsReadInBytesPerSecond() throws IOException {
        assertEquals(1_397_304_890.0, OpensslSpeed.bytesPerSecond(text("speed-aes-128-cbc-1024.txt")), 1.0);
    }

    @Test
    void rsaRowGivesSignaturesAndVerificationsPerSecond() throws IOException {
        assertArrayEquals(new double[] {4044.0, 68397.0}, OpensslSpeed.rsaPerSecond(text("speed-rsa2048.txt")), 0.01);
    }

    @Test
    void outputWithoutAFigureIsRefused() throws IOException {
        String refused = text("speed-seed-without-legacy.txt");
        assertThrows(IllegalArgumentException.class, () -> OpensslSpeed.bytesPerSecond(refused));
        assertThrows(IllegalArgumentException.class, () -> OpensslSpeed.rsaPerSecond(refused));
    }

    @Test
    void noOpensslOnThePathMeansNoFigures() {
        assertEquals(java.util.Optional.empty(), OpensslSpeed.measure(List.of(400), "/nonexistent/openssl"));
    }
}
