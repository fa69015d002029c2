package org.sipcrypt.server.tls.bc;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.Map;
import java.util.Objects;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bc engine's TLS 1.2 session tickets (RFC 5077): a session's state sealed under a key made at
 * start and opened again when a client offers the ticket back. The ticket follows RFC 5077 §4's
 * recommended layout, key_name (16 bytes), IV (12) and the encrypted state, with AES-256-GCM
 * whose tag stands for the HMAC. The state carries the name of the identity (default or
 * {@code tls.domain}) that granted it and when, so a ticket resumes under that identity only and
 * for {@code tls.sessionLifetime} at most. The key is never rotated nor shared: tickets do not
 * survive a restart nor go from one instance to another.
 * Threading: thread-safe; never blocks.
 */
final class SessionTickets {

    private static final Logger log = LoggerFactory.getLogger(SessionTickets.class);

    private static final int NAME_BYTES = 16;
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    /** The state format; a ticket of another format is declined. */
    private static final int FORMAT = 1;

    /**
     * What a ticket carries of a TLS 1.2 session, enough for an abbreviated handshake (RFC 5246
     * §7.3) and for the counters: the suite, the version, whether the master secret is extended
     * (RFC 7627), the master secret, the client's certificate chain (DER, empty when none) and the
     * server's extensions of the full handshake.
     * Threading: immutable once made (the arrays are not copied: the caller hands them over).
     */
    record State(int cipherSuite, int version, boolean extendedMasterSecret, byte[] masterSecret,
                 byte[][] peerChain, Map<Integer, byte[]> serverExtensions) {
        State {
            Objects.requireNonNull(masterSecret, "masterSecret");
            Objects.requireNonNull(peerChain, "peerChain");
            Objects.requireNonNull(serverExtensions, "serverExtensions");
        }
    }

    private final byte[] keyName = new byte[NAME_BYTES];
    private final SecretKeySpec key;
    private final SecureRandom random;
    private final Duration lifetime;
    private final Clock clock;

    /**
     * @param lifetime how long a ticket resumes after it was issued ({@code tls.sessionLifetime})
     */
    SessionTickets(SecureRandom random, Duration lifetime, Clock clock) {
        this.random = Objects.requireNonNull(random, "random");
        this.lifetime = Objects.requireNonNull(lifetime, "lifetime");
        this.clock = Objects.requireNonNull(clock, "clock");
        byte[] k = new byte[32];
        random.nextBytes(k);
        random.nextBytes(keyName);
        this.key = new SecretKeySpec(k, "AES");
        Arrays.fill(k, (byte) 0);
    }

    /** The lifetime hint of a NewSessionTicket (RFC 5077 §3.3), in seconds. */
    long lifetimeHintSeconds() {
        return Math.min(lifetime.toSeconds(), 0xFFFFFFFFL);
    }

    /** Seals {@code state}, granted under {@code identity}, into a ticket. */
    byte[] seal(String identity, State state) {
        byte[] plain = encode(identity, clock.millis(), state);
        try {
            byte[] iv = new byte[IV_BYTES];
            random.nextBytes(iv);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
            c.updateAAD(keyName);
            byte[] sealed = c.doFinal(plain);
            byte[] ticket = new byte[NAME_BYTES + IV_BYTES + sealed.length];
            System.arraycopy(keyName, 0, ticket, 0, NAME_BYTES);
            System.arraycopy(iv, 0, ticket, NAME_BYTES, IV_BYTES);
            System.arraycopy(sealed, 0, ticket, NAME_BYTES + IV_BYTES, sealed.length);
            return ticket;
        } catch (GeneralSecurityException e) {
            // AES-GCM is in every JDK: this is a defect of the runtime, not of the peer
            throw new IllegalStateException("cannot seal a session ticket with AES/GCM", e);
        } finally {
            Arrays.fill(plain, (byte) 0);
        }
    }

    /**
     * The state of a ticket this instance sealed under {@code identity} and that has not outlived
     * the lifetime; null for any other ticket (another key, tampered, expired, another identity's),
     * which the handshake answers with a full handshake (RFC 5077 §3.4).
     */
    State open(String identity, byte[] ticket) {
        if (ticket.length < NAME_BYTES + IV_BYTES + TAG_BITS / 8
                || !java.security.MessageDigest.isEqual(Arrays.copyOf(ticket, NAME_BYTES), keyName)) {
            log.debug("session ticket declined: not one of this key's");
            return null;
        }
        byte[] plain;
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, ticket, NAME_BYTES, IV_BYTES));
            c.updateAAD(keyName);
            plain = c.doFinal(ticket, NAME_BYTES + IV_BYTES, ticket.length - NAME_BYTES - IV_BYTES);
        } catch (javax.crypto.AEADBadTagException e) {
            log.debug("session ticket declined: its tag does not verify");
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot open a session ticket with AES/GCM", e);
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(plain))) {
            if (in.readUnsignedByte() != FORMAT) {
                log.debug("session ticket declined: unknown state format");
                return null;
            }
            String grantedUnder = in.readUTF();
            long issued = in.readLong();
            if (!grantedUnder.equals(identity)) {
                log.debug("session ticket declined: granted under {}, offered under {}", grantedUnder, identity);
                return null;
            }
            if (clock.millis() - issued >= lifetime.toMillis() || issued > clock.millis()) {
                log.debug("session ticket declined: issued {} ms ago, lifetime {}", clock.millis() - issued, lifetime);
                return null;
            }
            int suite = in.readUnsignedShort();
            int version = in.readUnsignedShort();
            boolean ems = in.readBoolean();
            byte[] master = bytes(in, in.readUnsignedShort());
            byte[][] chain = new byte[in.readUnsignedByte()][];
            for (int i = 0; i < chain.length; i++) {
                chain[i] = bytes(in, in.readInt());
            }
            int count = in.readUnsignedShort();
            Map<Integer, byte[]> extensions = new Hashtable<>();
            for (int i = 0; i < count; i++) {
                int type = in.readUnsignedShort();
                extensions.put(type, bytes(in, in.readUnsignedShort()));
            }
            return new State(suite, version, ems, master, chain, extensions);
        } catch (IOException e) {
            // authenticated bytes this class wrote: a short read is a defect of encode
            throw new IllegalStateException("a session ticket of this key does not parse", e);
        } finally {
            Arrays.fill(plain, (byte) 0);
        }
    }

    private static byte[] encode(String identity, long issued, State s) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeUTF(identity);
            out.writeLong(issued);
            out.writeShort(s.cipherSuite());
            out.writeShort(s.version());
            out.writeBoolean(s.extendedMasterSecret());
            out.writeShort(s.masterSecret().length);
            out.write(s.masterSecret());
            if (s.peerChain().length > 255) {
                throw new IllegalArgumentException("peerChain: " + s.peerChain().length + " certificates (at most 255)");
            }
            out.writeByte(s.peerChain().length);
            for (byte[] der : s.peerChain()) {
                out.writeInt(der.length);
                out.write(der);
            }
            out.writeShort(s.serverExtensions().size());
            for (Map.Entry<Integer, byte[]> e : s.serverExtensions().entrySet()) {
                out.writeShort(e.getKey());
                out.writeShort(e.getValue().length);
                out.write(e.getValue());
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory failed", e);
        }
        return bytes.toByteArray();
    }

    private static byte[] bytes(DataInputStream in, int length) throws IOException {
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }
}
