package org.sipcrypt.server.transport.netty.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.config.TlsDomainConfig;
import org.sipcrypt.server.tls.CurrentIdentities;
import org.sipcrypt.server.tls.LabCertificates;
import org.sipcrypt.server.tls.PemFiles;
import org.sipcrypt.server.tls.ServerIdentities;

@Timeout(60)
class DomainSniHandlerTest {

    private static final String AES = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
    private static final String CHACHA = "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256";

    @TempDir
    static Path dir;
    private static CurrentIdentities identities;
    private static SslContext fallback;
    private static SslContext chachaOnly;

    @BeforeAll
    static void contexts() throws Exception {
        LabCertificates ca = LabCertificates.create("sni handler CA", LabCertificates.KeyType.ECDSA, 2048, Duration.ofDays(1));
        for (String name : List.of("default", "b.example")) {
            LabCertificates.Issued issued = ca.server(List.of(name));
            PemFiles.writeCertificates(dir.resolve(name + ".pem"), List.of(issued.certificate()));
            PemFiles.writePrivateKey(dir.resolve(name + ".key"), issued.keys().getPrivate());
        }
        TlsConfig t = new TlsConfig.Builder().cert(dir.resolve("default.pem")).key(dir.resolve("default.key"))
                .domains(List.of(new TlsDomainConfig("b.example", dir.resolve("b.example.pem"), dir.resolve("b.example.key"))))
                .build();
        identities = new CurrentIdentities(ServerIdentities.read(t, Instant.now()));
        fallback = SslContextBuilder.forServer(identities.keyManager()).sslProvider(SslProvider.JDK)
                .protocols("TLSv1.2").ciphers(List.of(AES, CHACHA)).build();
        chachaOnly = SslContextBuilder.forServer(identities.keyManager()).sslProvider(SslProvider.JDK)
                .protocols("TLSv1.2").ciphers(List.of(CHACHA)).build();
    }

    private static EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast("tls", new DomainSniHandler(identities, Map.of("b.example", chachaOnly), fallback,
                10_000, h -> h.setHandshakeTimeoutMillis(5_000)));
        return ch;
    }

    /** The ClientHello of the JDK's client naming {@code serverName} (none when null). */
    private static byte[] clientHello(String serverName) throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, null, null);
        SSLEngine client = ctx.createSSLEngine("peer", 5061);
        client.setUseClientMode(true);
        SSLParameters p = client.getSSLParameters();
        p.setServerNames(serverName == null ? List.of() : List.of(new SNIHostName(serverName)));
        client.setSSLParameters(p);
        ByteBuffer out = ByteBuffer.allocate(client.getSession().getPacketBufferSize());
        client.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] bytes = new byte[out.remaining()];
        out.get(bytes);
        return bytes;
    }

    private static String[] chosenSuites(String serverName, boolean byteAtATime) throws Exception {
        EmbeddedChannel ch = channel();
        byte[] hello = clientHello(serverName);
        if (byteAtATime) {
            for (byte b : hello) {
                ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
            }
        } else {
            ch.writeInbound(Unpooled.wrappedBuffer(hello));
        }
        SslHandler ssl = assertInstanceOf(SslHandler.class, ch.pipeline().get("tls"),
                "the SslHandler in place, under the same name");
        String[] suites = ssl.engine().getEnabledCipherSuites();
        ch.finishAndReleaseAll();
        return suites;
    }

    @Test
    void theDomainsNameGetsItsContextAndAnyOtherTheListeners() throws Exception {
        for (boolean slow : new boolean[] {false, true}) {
            assertEquals(List.of(CHACHA), List.of(chosenSuites("b.example", slow)));
            assertEquals(List.of(CHACHA), List.of(chosenSuites("B.Example", slow)));
            assertEquals(List.of(AES, CHACHA), List.of(chosenSuites("other.example", slow)));
            assertEquals(List.of(AES, CHACHA), List.of(chosenSuites(null, slow)));
        }
    }

    @Test
    void anOversizedClientHelloClosesTheConnection() {
        EmbeddedChannel ch = channel();
        // a handshake record announcing a 1 MiB ClientHello
        ByteBuf record = Unpooled.buffer();
        record.writeByte(22).writeShort(0x0301).writeShort(4 + 100);
        record.writeByte(1).writeMedium(1 << 20);
        record.writeZero(100);
        assertThrows(Exception.class, () -> ch.writeInbound(record));
        assertFalse(ch.isOpen());
        assertTrue(ch.pipeline().get("tls") == null || ch.pipeline().get("tls") instanceof DomainSniHandler);
        ch.finishAndReleaseAll();
    }
}
