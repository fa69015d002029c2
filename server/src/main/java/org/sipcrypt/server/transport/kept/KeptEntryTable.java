package org.sipcrypt.server.transport.kept;

import com.github.benmanes.caffeine.cache.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.StampedLock;

/**
 * The store behind {@link CompletedTransactions}: a hash table of {@link KeptEntry} arrays, one
 * object per entry, with no node, key or value object around it. Every entry lives for one of two
 * fixed times ({@code lifetime}, or {@code afterAck} for a {@link KeptEntry#CONFIRMED} one), so within
 * each the entries expire in the order they were written: two queues in write order (rings holding the
 * same arrays) are swept from their heads on every write, a few entries at a time, and lookups check
 * an entry's age themselves; {@link #sweepExpired} removes every expired entry, for a timer, so that
 * expired bytes go even when nothing is written. Beyond {@code maxEntries} a write first removes an
 * expired head, else the oldest entry (the older of the two heads); beyond {@code maxBytes} (the sum
 * of the entries' {@link #cost}) it removes the oldest entries until the table is back within the
 * budget, and an entry larger than the whole budget is not kept at all. {@link #trim} removes the
 * oldest entries down to a number of bytes, for the heap guard. An entry replaced under its key, or removed, is
 * flagged removed and its ring slot released at once (each entry holds its ring position), so that
 * its bytes go with it rather than when the ring's head reaches the slot, which is skipped then.
 * Open addressing with linear probing and backward-shift deletion, in an array sized once for the
 * bound at half load (never resized, so no write rehashes); the hash is seeded per table so that peers
 * cannot aim keys at one slot.
 * Threading: thread-safe; lookups read optimistically (the read lock only when a write ran meanwhile),
 * writes take the write lock for a few probes and ring steps (no I/O; a ring grows by copying at most
 * once per doubling).
 */
final class KeptEntryTable {

    /** The largest bound accepted: the table then holds 2^25 references (128 MiB; 256 MiB under ZGC). */
    static final long MAX_ENTRIES = 1 << 24;
    /** Most expired or replaced ring slots a write removes from each ring: more than a write adds. */
    private static final int SWEEP_PER_WRITE = 4;
    /** Most entries a timer's sweep or a trim removes under one hold of the write lock. */
    private static final int REMOVE_PER_LOCK = 1024;
    /** What an entry costs on the heap besides its bytes: the array's header and the table's slot. */
    static final int ENTRY_OVERHEAD = 16 + 8;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final long lifetimeNanos;
    private final long afterAckNanos;
    private final int maxEntries;
    private final long maxBytes;
    private final Ticker ticker;
    private final long seed = new SecureRandom().nextLong();
    private final StampedLock lock = new StampedLock();
    private final byte[][] slots;
    private final int mask;
    private final Ring lasting = new Ring();
    private final Ring confirmed = new Ring();
    /** What a ring slot holds once its entry has left the table before reaching the head. */
    private static final byte[] RELEASED = KeptEntry.released();
    private int size;
    /** The sum of the {@link #cost} of the entries in the table. */
    private long bytes;
    private long evictedForEntries;
    private long evictedForBytes;
    private long evictedByTrim;
    private long refusedTooLarge;

    KeptEntryTable(Duration lifetime, Duration afterAck, long maxEntries, Ticker ticker) {
        this(lifetime, afterAck, maxEntries, Long.MAX_VALUE, ticker);
    }

    /**
     * @param maxBytes most bytes kept at once, counted by {@link #cost}; beyond it the oldest entries go
     */
    KeptEntryTable(Duration lifetime, Duration afterAck, long maxEntries, long maxBytes, Ticker ticker) {
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("lifetime must be positive: " + lifetime);
        }
        if (afterAck.isNegative() || afterAck.isZero()) {
            throw new IllegalArgumentException("afterAck must be positive: " + afterAck);
        }
        if (maxEntries < 1 || maxEntries > MAX_ENTRIES) {
            throw new IllegalArgumentException("maxEntries must be 1 to " + MAX_ENTRIES + ": " + maxEntries);
        }
        this.lifetimeNanos = lifetime.toNanos();
        this.afterAckNanos = afterAck.toNanos();
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
        }
        this.maxEntries = (int) maxEntries;
        this.maxBytes = maxBytes;
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        // at most half full, so that probes stay short and every probe sequence meets an empty slot
        this.slots = new byte[Integer.highestOneBit(2 * this.maxEntries - 1) << 1][];
        this.mask = slots.length - 1;
    }

    /**
     * The live entry kept under {@code key}, or null. Lookups run on the event loops: they read
     * without the lock (the slot array never changes size and an entry is whole before it is
     * published, so a probe racing a write reads stale references, never a broken entry) and take
     * the read lock only when a write ran meanwhile.
     */
    byte[] get(byte[] key) {
        int hash = hash(key, 0, key.length);
        long now = ticker.read();
        long stamp = lock.tryOptimisticRead();
        if (stamp != 0) {
            try {
                byte[] found = live(key, hash, now);
                if (lock.validate(stamp)) {
                    return found;
                }
            } catch (IndexOutOfBoundsException raced) {
                // a probe raced a write that moved entries between slots; the locked lookup reads them still
            }
        }
        stamp = lock.readLock();
        try {
            return live(key, hash, now);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    private byte[] live(byte[] key, int hash, long now) {
        int i = indexOf(key, 0, key.length, hash);
        byte[] entry = i < 0 ? null : slots[i];
        return entry == null || expired(entry, now) ? null : entry;
    }

    /** What keeping {@code entry} costs on the heap, in bytes: its length and {@link #ENTRY_OVERHEAD}. */
    static long cost(byte[] entry) {
        return entry.length + (long) ENTRY_OVERHEAD;
    }

    /**
     * Keeps {@code entry} (filled but not yet published), replacing what its key held; whether it is
     * kept (false when it alone costs more than the whole byte budget: what its key held goes then).
     */
    boolean put(byte[] entry) {
        int keyLength = KeptEntry.keyLength(entry);
        int hash = hash(entry, KeptEntry.KEY, keyLength);
        KeptEntry.hash(entry, hash);
        long stamp = lock.writeLock();
        try {
            long now = ticker.read();
            KeptEntry.written(entry, now);
            sweep(now, SWEEP_PER_WRITE);
            if (cost(entry) > maxBytes) {
                refusedTooLarge++;
                int i = indexOf(entry, KeptEntry.KEY, keyLength, hash);
                if (i >= 0) {
                    byte[] replaced = slots[i];
                    removeAt(i);
                    ring(replaced).release(replaced);
                }
                return false;
            }
            Ring ring = ring(entry);
            // sweeping and evicting take from the heads, which leaves the next sequence number as it is
            KeptEntry.ringSequence(entry, ring.nextSequence());
            int i = indexOf(entry, KeptEntry.KEY, keyLength, hash);
            if (i >= 0) {
                byte[] replaced = slots[i];
                KeptEntry.markRemoved(replaced);
                ring(replaced).release(replaced);
                slots[i] = entry;
                bytes += cost(entry) - cost(replaced);
            } else {
                if (size == maxEntries) {
                    removeOne(now);
                    evictedForEntries++;
                }
                insert(entry, hash);
            }
            ring.add(entry);
            // the new entry is the youngest and within the budget alone, so this stops before it
            while (bytes > maxBytes) {
                removeOne(now);
                evictedForBytes++;
            }
            return true;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Puts {@code replacement} (same key, filled but not yet published) in place of {@code expected}
     * if that is still kept and live; whether it was.
     */
    boolean replace(byte[] expected, byte[] replacement) {
        KeptEntry.hash(replacement, KeptEntry.hash(expected));
        long stamp = lock.writeLock();
        try {
            long now = ticker.read();
            if (KeptEntry.removed(expected) || expired(expected, now)) {
                return false;
            }
            KeptEntry.written(replacement, now);
            Ring ring = ring(replacement);
            KeptEntry.ringSequence(replacement, ring.nextSequence());
            int i = indexOfEntry(expected);
            KeptEntry.markRemoved(expected);
            ring(expected).release(expected);
            slots[i] = replacement;
            bytes += cost(replacement) - cost(expected);
            ring.add(replacement);
            sweep(now, SWEEP_PER_WRITE);
            while (bytes > maxBytes) {
                removeOne(now);
                evictedForBytes++;
            }
            return true;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Takes {@code expected} out of the table if it is still in it; whether it was. */
    boolean remove(byte[] expected) {
        long stamp = lock.writeLock();
        try {
            if (KeptEntry.removed(expected)) {
                return false;
            }
            removeAt(indexOfEntry(expected));
            ring(expected).release(expected);
            sweep(ticker.read(), SWEEP_PER_WRITE);
            return true;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Removes every expired entry, taking the write lock for at most {@link #REMOVE_PER_LOCK} entries
     * at a time so that lookups on the event loops wait little; for a timer, so that expired entries
     * go even when nothing is written. The entries removed.
     */
    int sweepExpired() {
        int removed = 0;
        while (true) {
            long stamp = lock.writeLock();
            try {
                int before = size;
                boolean more = sweep(ticker.read(), REMOVE_PER_LOCK);
                removed += before - size;
                if (!more) {
                    return removed;
                }
            } finally {
                lock.unlockWrite(stamp);
            }
        }
    }

    /**
     * Removes the oldest entries, live or not, until at most {@code targetBytes} are kept; for the heap
     * guard, which frees what it guards. Takes the write lock for at most {@link #REMOVE_PER_LOCK}
     * entries at a time. The entries removed.
     */
    int trim(long targetBytes) {
        int removed = 0;
        while (true) {
            long stamp = lock.writeLock();
            try {
                for (int n = 0; n < REMOVE_PER_LOCK; n++) {
                    if (bytes <= targetBytes || size == 0) {
                        return removed;
                    }
                    removeOne(ticker.read());
                    evictedByTrim++;
                    removed++;
                }
            } finally {
                lock.unlockWrite(stamp);
            }
        }
    }

    /** Bytes kept now (the sum of the entries' {@link #cost}), expired ones not yet swept included. */
    long bytes() {
        long stamp = lock.readLock();
        try {
            return bytes;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** The byte budget. */
    long maxBytes() {
        return maxBytes;
    }

    /** Live entries removed so far to stay within a bound: {@code entries}, {@code bytes} or {@code trim}. */
    long evicted(String bound) {
        long stamp = lock.readLock();
        try {
            return switch (bound) {
                case "entries" -> evictedForEntries;
                case "bytes" -> evictedForBytes;
                case "trim" -> evictedByTrim;
                case "too_large" -> refusedTooLarge;
                default -> throw new IllegalArgumentException("bound: " + bound);
            };
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Entries kept now, after removing every expired one. */
    int size() {
        long stamp = lock.writeLock();
        try {
            long now = ticker.read();
            sweep(now, Integer.MAX_VALUE);
            return size;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Ring slots still holding an entry that has left the table (for tests: released at once, so none). */
    int ringHeldRemoved() {
        long stamp = lock.readLock();
        try {
            return lasting.heldRemoved() + confirmed.heldRemoved();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Entries in the table, expired ones not yet swept included. */
    int held() {
        long stamp = lock.readLock();
        try {
            return size;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    private boolean expired(byte[] entry, long now) {
        long age = now - KeptEntry.written(entry);
        return age >= (KeptEntry.kind(entry) == KeptEntry.CONFIRMED ? afterAckNanos : lifetimeNanos);
    }

    private Ring ring(byte[] entry) {
        return KeptEntry.kind(entry) == KeptEntry.CONFIRMED ? confirmed : lasting;
    }

    /**
     * Drops up to {@code limit} replaced or expired entries from the head of each ring; whether either
     * ring stopped at the limit (more may be left).
     */
    private boolean sweep(long now, int limit) {
        boolean a = sweep(lasting, now, limit);
        boolean b = sweep(confirmed, now, limit);
        return a || b;
    }

    /** Drops up to {@code limit} ring slots from the head that are replaced or expired; whether it stopped at the limit. */
    private boolean sweep(Ring ring, long now, int limit) {
        for (int n = 0; n < limit; n++) {
            byte[] head = ring.peek();
            if (head == null) {
                return false;
            }
            if (!KeptEntry.removed(head)) {
                if (!expired(head, now)) {
                    return false;
                }
                removeAt(indexOfEntry(head));
            }
            ring.poll();
        }
        return true;
    }

    /**
     * Makes room for one entry: an expired head if there is one (behind a live head every entry of
     * that ring is younger), else the older head, the oldest entry kept.
     */
    private void removeOne(long now) {
        byte[] a = lasting.live();
        byte[] b = confirmed.live();
        Ring from;
        if (a != null && expired(a, now)) {
            from = lasting;
        } else if (b != null && expired(b, now)) {
            from = confirmed;
        } else {
            from = b == null || a != null && KeptEntry.written(a) - KeptEntry.written(b) <= 0 ? lasting : confirmed;
        }
        removeAt(indexOfEntry(from.poll()));
    }

    private void insert(byte[] entry, int hash) {
        int i = hash & mask;
        while (slots[i] != null) {
            i = (i + 1) & mask;
        }
        slots[i] = entry;
        size++;
        bytes += cost(entry);
    }

    /** The slot of the entry whose key is that region of {@code key}, or -1. */
    private int indexOf(byte[] key, int offset, int length, int hash) {
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            byte[] e = slots[i];
            if (e == null) {
                return -1;
            }
            if (KeptEntry.hash(e) == hash && KeptEntry.keyEquals(e, key, offset, length)) {
                return i;
            }
        }
    }

    /** The slot holding this very entry, which must be in the table. */
    private int indexOfEntry(byte[] entry) {
        for (int i = KeptEntry.hash(entry) & mask; ; i = (i + 1) & mask) {
            if (slots[i] == entry) {
                return i;
            }
            if (slots[i] == null) {
                throw new IllegalStateException("a kept entry is missing from its slots");
            }
        }
    }

    /** Empties slot {@code gap}, moving back the entries after it that may not stay behind a gap. */
    private void removeAt(int gap) {
        KeptEntry.markRemoved(slots[gap]);
        bytes -= cost(slots[gap]);
        for (int j = (gap + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
            int home = KeptEntry.hash(slots[j]) & mask;
            // the entry at j may fill the gap when the gap lies between its home slot and j
            if (((j - home) & mask) >= ((j - gap) & mask)) {
                slots[gap] = slots[j];
                gap = j;
            }
        }
        slots[gap] = null;
        size--;
    }

    /** A hash of the region, keyed by this table's seed (64-bit mixing per 8 bytes, MurmurHash3's finaliser). */
    private int hash(byte[] bytes, int offset, int length) {
        long h = seed ^ length * 0x9E3779B97F4A7C15L;
        int end = offset + length;
        int i = offset;
        for (; i + 8 <= end; i += 8) {
            h = mix(h ^ (long) LONG.get(bytes, i));
        }
        long tail = 0;
        for (int shift = 0; i < end; i++, shift += 8) {
            tail |= (bytes[i] & 0xffL) << shift;
        }
        h = mix(h ^ tail);
        return (int) (h ^ h >>> 32);
    }

    private static long mix(long z) {
        z = (z ^ z >>> 33) * 0xff51afd7ed558ccdL;
        z = (z ^ z >>> 33) * 0xc4ceb9fe1a85ec53L;
        return z ^ z >>> 33;
    }

    /**
     * Entries in write order; a power-of-two array used as a ring, grown by doubling. Each entry added
     * gets the next sequence number (wrapping), by which its slot is found again while it is in the ring.
     */
    private static final class Ring {
        private byte[][] items = new byte[16][];
        private int head;
        private int count;
        /** The sequence number of the entry at the head. */
        private int headSequence;

        /** The sequence number the next entry added gets. */
        int nextSequence() {
            return headSequence + count;
        }

        void add(byte[] entry) {
            if (count == items.length) {
                byte[][] grown = new byte[items.length * 2][];
                for (int n = 0; n < count; n++) {
                    grown[n] = items[(head + n) & (items.length - 1)];
                }
                items = grown;
                head = 0;
            }
            items[(head + count) & (items.length - 1)] = entry;
            count++;
        }

        byte[] peek() {
            return count == 0 ? null : items[head];
        }

        byte[] poll() {
            byte[] entry = items[head];
            items[head] = null;
            head = (head + 1) & (items.length - 1);
            count--;
            headSequence++;
            return entry;
        }

        /** Drops the ring's reference to {@code entry}, which has left the table, if the ring still holds it. */
        void release(byte[] entry) {
            int offset = KeptEntry.ringSequence(entry) - headSequence;
            if (offset >= 0 && offset < count) {
                int i = (head + offset) & (items.length - 1);
                if (items[i] == entry) {
                    items[i] = RELEASED;
                }
            }
        }

        /** Slots holding an entry flagged removed, the released marker aside. */
        int heldRemoved() {
            int n = 0;
            for (int k = 0; k < count; k++) {
                byte[] e = items[(head + k) & (items.length - 1)];
                if (e != RELEASED && KeptEntry.removed(e)) {
                    n++;
                }
            }
            return n;
        }

        /** The head after dropping replaced entries, or null. */
        byte[] live() {
            while (count > 0 && KeptEntry.removed(items[head])) {
                poll();
            }
            return peek();
        }
    }
}
