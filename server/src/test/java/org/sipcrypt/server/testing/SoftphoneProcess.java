package org.sipcrypt.server.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A softphone nobody here wrote (baresip, linphonec) run headless as a child process: commands
 * go to its standard input one line at a time, its standard output and error are read into a
 * bounded buffer of lines that tests wait on. Lines are kept the way a terminal shows them: a
 * carriage return starts the line again, so the call-status line a phone redraws ten times a
 * second stays one line. {@link #close()} ends the process by its PID (TERM, then KILL after 5 s)
 * and the reader thread with it.
 *
 * <p>Waits move a cursor: {@link #awaitAny} finds the first line after the cursor that contains
 * one of the fragments and moves the cursor past it, so the second "Call established" of a test is
 * found after the first. A wait that fails throws {@link AssertionError} with the last lines of
 * output.
 * Threading: one test thread drives it; one reader thread per process fills the buffer; the buffer
 * is guarded by its own monitor. {@link #close()} may be called from any thread.
 */
public final class SoftphoneProcess implements AutoCloseable {

    private static final int MAX_LINES = 4_000;
    private static final int MAX_LINE_CHARS = 2_000;
    private static final int TAIL_LINES = 80;
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final String name;
    private final Process process;
    private final OutputStream stdin;
    private final Thread reader;
    private final Object lock = new Object();
    /** Finished lines, oldest first; the first has number {@link #firstLine}. */
    private final Deque<String> lines = new ArrayDeque<>();
    private long firstLine;
    private final StringBuilder current = new StringBuilder();
    private long cursor;
    private boolean ended;

    private SoftphoneProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.reader = new Thread(this::readOutput, "softphone-out-" + name);
        this.reader.setDaemon(true);
    }

    /**
     * Starts {@code command} in {@code workDir} with standard error merged into standard output.
     *
     * @param name        short name for thread names and messages, e.g. {@code baresip-alice}
     * @param env         variables added to the inherited environment (e.g. {@code HOME})
     * @param installHint the failure message when the executable is not on the {@code PATH}
     * @throws IllegalStateException with {@code installHint} when the executable is missing
     */
    static SoftphoneProcess start(String name, List<String> command, Path workDir, Map<String, String> env,
                                  String installHint) throws IOException {
        Objects.requireNonNull(command, "command");
        executable(command.get(0), installHint);
        // a phone's C stdio buffers standard output in 4 KB blocks when it is a pipe: a line such as
        // baresip's "terminated" would wait for the next 4 KB; stdbuf (coreutils) makes it line-buffered
        List<String> lineBuffered = new java.util.ArrayList<>(List.of(
                executable("stdbuf", "stdbuf not found: install coreutils").toString(), "-oL", "-eL"));
        lineBuffered.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(lineBuffered).directory(workDir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        SoftphoneProcess p = new SoftphoneProcess(name, pb.start());
        p.reader.start();
        return p;
    }

    /** The executable {@code program} on the {@code PATH}; fails with {@code installHint} when there is none. */
    static Path executable(String program, String installHint) {
        String path = Objects.requireNonNullElse(System.getenv("PATH"), "");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, program);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException(installHint);
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the process still runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Writes one command line to the phone's standard input. */
    public void send(String commandLine) {
        try {
            stdin.write((commandLine + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot send \"" + commandLine + "\" (exited? " + describe() + ")", e);
        }
    }

    /**
     * Waits for the first line after the cursor that contains one of {@code fragments}, moves the
     * cursor past it and returns it.
     *
     * @throws AssertionError with the output's tail when none appears within {@code timeout} or the
     *                        process ends first
     */
    public String awaitAny(Duration timeout, String... fragments) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (true) {
                long number = Math.max(cursor, firstLine);
                for (var it = lines.stream().skip(number - firstLine).iterator(); it.hasNext(); number++) {
                    String line = it.next();
                    for (String f : fragments) {
                        if (line.contains(f)) {
                            cursor = number + 1;
                            return line;
                        }
                    }
                }
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new AssertionError(name + ": no line with any of " + List.of(fragments) + " within "
                            + timeout.toSeconds() + " s" + (ended ? " (the process ended)" : "") + "\n" + tailLocked());
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /** The process's state and the last lines of its output, for assertion messages. */
    public String describe() {
        synchronized (lock) {
            return tailLocked();
        }
    }

    private String tailLocked() {
        StringBuilder sb = new StringBuilder("  --- last output of ").append(name).append(" (pid ").append(process.pid())
                .append(process.isAlive() ? ", running" : ", exited " + process.exitValue()).append(") ---\n");
        lines.stream().skip(Math.max(0, lines.size() - TAIL_LINES)).forEach(l -> sb.append("  ").append(l).append('\n'));
        if (current.length() > 0) {
            sb.append("  ").append(current).append('\n');
        }
        return sb.toString();
    }

    private void readOutput() {
        byte[] buf = new byte[8192];
        try (InputStream in = process.getInputStream()) {
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                take(new String(buf, 0, n, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            take("\n[reading output failed: " + e + "]\n");
        } finally {
            synchronized (lock) {
                if (current.length() > 0) {
                    addLine(current.toString());
                    current.setLength(0);
                }
                ended = true;
                lock.notifyAll();
            }
        }
    }

    /** Appends output as a terminal shows it: LF (or CR LF) ends a line, a lone CR starts the current one again, escapes dropped. */
    private void take(String text) {
        synchronized (lock) {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '\n') {
                    addLine(current.toString());
                    current.setLength(0);
                } else if (c == '\r') {
                    if (i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                        continue;   // CR LF ends the line as LF does
                    }
                    current.setLength(0);
                } else if (c == '\u001b') {
                    // colour escapes such as ESC[31m: skip up to the final letter
                    while (i + 1 < text.length() && !Character.isLetter(text.charAt(i + 1))) {
                        i++;
                    }
                    i++;
                } else if (current.length() < MAX_LINE_CHARS) {
                    current.append(c);
                }
            }
            lock.notifyAll();
        }
    }

    private void addLine(String line) {
        lines.addLast(line);
        if (lines.size() > MAX_LINES) {
            lines.removeFirst();
            firstLine++;
        }
    }

    /**
     * Ends the process by PID with KILL (no chance to say goodbye) and waits for it to exit.
     *
     * @throws AssertionError when it has not exited 5 s after the signal
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " (pid " + process.pid() + ") still runs 5 s after KILL");
        }
    }

    /** Ends the process by PID (TERM, KILL after 5 s) and waits for its output to be read. Idempotent. */
    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // the process may have exited and closed its end: the pipe's state, not an error of ours
            take("\n[closing standard input: " + e + "]\n");
        }
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
            reader.join(STOP_GRACE.toMillis());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
