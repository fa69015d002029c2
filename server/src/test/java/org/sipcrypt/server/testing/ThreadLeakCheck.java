package org.sipcrypt.server.testing;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaves a {@code sipcrypt-*} thread running once it is done, the way
 * OkHttp's test rule fails a test that leaks a connection: whatever a test starts (a server, a
 * batcher, a pool) it must close, and closing must end its threads. After each class it waits up
 * to {@link #GRACE} for the threads named {@code sipcrypt-} that were not alive before the class
 * to end, then fails naming each with its stack. Registered for every test class of the server
 * and the lab by JUnit's extension auto-detection ({@code junit-platform.properties} and
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension}); {@link #ALLOWED} names the
 * threads that are process-wide by design, each with its reason.
 * Threading: JUnit calls it on the thread running the test class; per-class state lives in the
 * extension context's store.
 */
public final class ThreadLeakCheck implements BeforeAllCallback, AfterAllCallback {

    /** How long threads get to end after their class: closing is asynchronous in places (Netty's shutdown). */
    static final Duration GRACE = Duration.ofSeconds(10);
    static final String PREFIX = "sipcrypt-";
    /** Name prefixes of threads allowed to outlive a class, and why. */
    static final Map<String, String> ALLOWED = Map.of();

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ThreadLeakCheck.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NS).put(context.getUniqueId(), new HashSet<>(watched()));
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        @SuppressWarnings("unchecked")
        Set<Thread> before = context.getStore(NS).remove(context.getUniqueId(), Set.class);
        if (before == null) {
            return;
        }
        long deadline = System.nanoTime() + GRACE.toNanos();
        List<Thread> leaked = leakedSince(before);
        while (!leaked.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            leaked = leakedSince(before);
        }
        if (!leaked.isEmpty()) {
            throw new AssertionError(leaked.size() + " thread(s) outlived " + context.getDisplayName() + " by "
                    + GRACE + " (close what started them):\n" + leaked.stream().map(ThreadLeakCheck::describe)
                    .collect(Collectors.joining("\n")));
        }
    }

    private static List<Thread> leakedSince(Set<Thread> before) {
        return watched().stream().filter(t -> !before.contains(t)).sorted(Comparator.comparing(Thread::getName))
                .toList();
    }

    /** The live threads named {@code sipcrypt-} that no {@link #ALLOWED} entry covers. */
    static List<Thread> watched() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(PREFIX))
                .filter(t -> ALLOWED.keySet().stream().noneMatch(a -> t.getName().startsWith(a)))
                .toList();
    }

    private static String describe(Thread t) {
        StringBuilder sb = new StringBuilder("  \"").append(t.getName()).append("\" ").append(t.getState());
        for (StackTraceElement e : t.getStackTrace()) {
            sb.append("\n      at ").append(e);
        }
        return sb.toString();
    }
}
