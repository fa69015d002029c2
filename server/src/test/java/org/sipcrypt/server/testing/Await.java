package org.sipcrypt.server.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition by polling against a deadline, instead of sleeping a guessed time.
 * Threading: the calling test thread.
 */
public final class Await {

    private Await() {
    }

    /** Polls until the condition holds; fails with the message (and the last described state) at the deadline. */
    public static void until(BooleanSupplier condition, Duration timeout, Supplier<String> describe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within " + timeout + ": " + describe.get());
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }
}
