package org.sipcrypt.server.transport.kept;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The layout of one kept transaction in a single byte array, so that what {@link CompletedTransactions}
 * keeps per transaction is one object: a header (write time, key hash, kind, removed flag, key length,
 * position in the table's write-order ring),
 * the key in UTF-8, and for an answer its destination (IPv4: 4 address bytes and the port; IPv6: 16
 * address bytes, the scope id and the port) followed by the response's bytes up to the end. The
 * destination is rebuilt as an {@link InetSocketAddress} only when a retransmission is answered.
 * Threading: static functions; an array is filled before {@link KeptEntryTable} publishes it, and
 * afterwards only its removed flag changes, under the table's write lock.
 */
final class KeptEntry {

    /** An INVITE answered with 2xx: its retransmissions are absorbed (RFC 6026 §7.1). */
    static final byte ACCEPTED = 0;
    /** A rejected INVITE whose ACK has arrived (RFC 3261 §17.2.1); lives for Timer I. */
    static final byte CONFIRMED = 1;
    /** A final response to send again, to an IPv4 destination. */
    static final byte ANSWER_V4 = 2;
    /** A final response to send again, to an IPv6 destination. */
    static final byte ANSWER_V6 = 3;
    /**
     * The last provisional response of an INVITE still in progress, to send again to a retransmission
     * of the INVITE (RFC 3261 §17.2.1), to an IPv4 destination; unlike an answer, its ACK is not absorbed.
     */
    static final byte PROVISIONAL_V4 = 4;
    /** As {@link #PROVISIONAL_V4}, to an IPv6 destination. */
    static final byte PROVISIONAL_V6 = 5;

    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private static final int WRITTEN = 0;
    private static final int HASH = 8;
    private static final int KIND = 12;
    private static final int REMOVED = 13;
    private static final int KEY_LENGTH = 14;
    private static final int RING_SEQUENCE = 18;
    /** Where the key starts. */
    static final int KEY = 22;

    private static final int V4_DESTINATION = 4 + 2;
    private static final int V6_DESTINATION = 16 + 4 + 2;

    private KeptEntry() {
    }

    /** An entry that absorbs retransmissions without an answer ({@link #ACCEPTED} or {@link #CONFIRMED}). */
    static byte[] absorbing(byte kind, byte[] key) {
        byte[] entry = new byte[KEY + key.length];
        header(entry, kind, key);
        return entry;
    }

    /**
     * An entry that answers retransmissions with the final response {@code response}, sent to
     * {@code destination}.
     *
     * @throws IllegalArgumentException when the destination is unresolved
     */
    static byte[] answer(byte[] key, byte[] response, InetSocketAddress destination) {
        return answer(key, response, destination, false);
    }

    /**
     * An entry that answers retransmissions with {@code response}, sent to {@code destination}: a
     * final response, or the last provisional one of an INVITE in progress.
     *
     * @throws IllegalArgumentException when the destination is unresolved
     */
    static byte[] answer(byte[] key, byte[] response, InetSocketAddress destination, boolean provisional) {
        InetAddress address = destination.getAddress();
        if (address == null) {
            throw new IllegalArgumentException("destination unresolved: " + destination);
        }
        boolean v4 = address instanceof Inet4Address;
        int at = KEY + key.length;
        byte[] entry = new byte[at + (v4 ? V4_DESTINATION : V6_DESTINATION) + response.length];
        header(entry, provisional ? (v4 ? PROVISIONAL_V4 : PROVISIONAL_V6) : (v4 ? ANSWER_V4 : ANSWER_V6), key);
        byte[] raw = address.getAddress();
        System.arraycopy(raw, 0, entry, at, raw.length);
        at += raw.length;
        if (!v4) {
            INT.set(entry, at, ((Inet6Address) address).getScopeId());
            at += 4;
        }
        entry[at] = (byte) (destination.getPort() >>> 8);
        entry[at + 1] = (byte) destination.getPort();
        System.arraycopy(response, 0, entry, at + 2, response.length);
        return entry;
    }

    private static void header(byte[] entry, byte kind, byte[] key) {
        entry[KIND] = kind;
        INT.set(entry, KEY_LENGTH, key.length);
        System.arraycopy(key, 0, entry, KEY, key.length);
    }

    static byte kind(byte[] entry) {
        return entry[KIND];
    }

    /** Whether the entry is a {@link #PROVISIONAL_V4} or {@link #PROVISIONAL_V6} one. */
    static boolean provisional(byte[] entry) {
        return kind(entry) == PROVISIONAL_V4 || kind(entry) == PROVISIONAL_V6;
    }

    private static boolean toIpv4(byte[] entry) {
        return kind(entry) == ANSWER_V4 || kind(entry) == PROVISIONAL_V4;
    }

    static int keyLength(byte[] entry) {
        return (int) INT.get(entry, KEY_LENGTH);
    }

    /** Whether the entry's key is {@code key}. */
    static boolean keyEquals(byte[] entry, byte[] key, int keyOffset, int keyLength) {
        return keyLength(entry) == keyLength
                && Arrays.equals(entry, KEY, KEY + keyLength, key, keyOffset, keyOffset + keyLength);
    }

    /** The sequence number the table's ring gave the entry (set by the table before it publishes it). */
    static int ringSequence(byte[] entry) {
        return (int) INT.get(entry, RING_SEQUENCE);
    }

    static void ringSequence(byte[] entry, int sequence) {
        INT.set(entry, RING_SEQUENCE, sequence);
    }

    /** A header-only entry flagged removed, for a ring slot whose entry has left the table. */
    static byte[] released() {
        byte[] entry = new byte[KEY];
        markRemoved(entry);
        return entry;
    }

    /** The ticker time the entry was written at (set by the table). */
    static long written(byte[] entry) {
        return (long) LONG.get(entry, WRITTEN);
    }

    static void written(byte[] entry, long nanos) {
        LONG.set(entry, WRITTEN, nanos);
    }

    /** The table's hash of the key (set by the table). */
    static int hash(byte[] entry) {
        return (int) INT.get(entry, HASH);
    }

    static void hash(byte[] entry, int hash) {
        INT.set(entry, HASH, hash);
    }

    /** Whether the entry has left the table (replaced, expired or evicted). */
    static boolean removed(byte[] entry) {
        return entry[REMOVED] != 0;
    }

    static void markRemoved(byte[] entry) {
        entry[REMOVED] = 1;
    }

    /** A copy of the response of an answering entry ({@code ANSWER_} or {@code PROVISIONAL_}). */
    static byte[] response(byte[] entry) {
        return Arrays.copyOfRange(entry, destinationOffset(entry) + destinationLength(entry), entry.length);
    }

    /** The destination of an answering entry ({@code ANSWER_} or {@code PROVISIONAL_}), rebuilt from its bytes. */
    static InetSocketAddress destination(byte[] entry) {
        int at = destinationOffset(entry);
        boolean v4 = toIpv4(entry);
        byte[] raw = Arrays.copyOfRange(entry, at, at + (v4 ? 4 : 16));
        at += raw.length;
        InetAddress address;
        try {
            if (v4) {
                address = InetAddress.getByAddress(raw);
            } else {
                int scope = (int) INT.get(entry, at);
                at += 4;
                // a scope of 0 is no scope; Inet6Address also keeps an IPv4-mapped address as it was
                address = Inet6Address.getByAddress(null, raw, scope == 0 ? -1 : scope);
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException("kept destination of " + raw.length + " bytes", e);
        }
        return new InetSocketAddress(address, (entry[at] & 0xff) << 8 | entry[at + 1] & 0xff);
    }

    private static int destinationOffset(byte[] entry) {
        return KEY + keyLength(entry);
    }

    private static int destinationLength(byte[] entry) {
        return toIpv4(entry) ? V4_DESTINATION : V6_DESTINATION;
    }
}
