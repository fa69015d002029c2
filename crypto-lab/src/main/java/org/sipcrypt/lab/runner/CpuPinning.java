package org.sipcrypt.lab.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the processes of a comparison run: the server under test on CPUs of its own, the lab's
 * generator and UAS on the others, with {@code taskset} (sched_setaffinity). On a machine of two or
 * more CPUs the server's peak is then bounded by its own CPUs, not by what the generator takes from
 * them. Without {@code taskset}, on one CPU, or with pinning off, nothing is pinned and
 * {@link #describe()} says why.
 * Threading: immutable; {@link #pinLab()} runs {@code taskset} on the caller's thread.
 *
 * @param serverCpus the server's CPUs, empty when nothing is pinned
 * @param labCpus    the lab's CPUs (its own JVM, the generators it starts), empty when nothing is pinned
 * @param why        why nothing is pinned; null when pinned
 */
public record CpuPinning(List<Integer> serverCpus, List<Integer> labCpus, String why) {

    private static final Logger log = LoggerFactory.getLogger(CpuPinning.class);

    /** What {@code --pin off} gives. */
    public static final CpuPinning OFF = new CpuPinning(List.of(), List.of(), "pinning off");

    public CpuPinning {
        serverCpus = List.copyOf(serverCpus);
        labCpus = List.copyOf(labCpus);
        if (why == null && (serverCpus.isEmpty() || labCpus.isEmpty())) {
            throw new IllegalArgumentException("pinned without CPUs for the server and the lab");
        }
    }

    /**
     * The plan for a setting: {@code off}; {@code auto} (the server on the first of this process's
     * CPUs, the lab on the rest); or a CPU list for the server ({@code 0}, {@code 0-1}, {@code 2,3}),
     * the lab getting the other allowed CPUs.
     */
    public static CpuPinning plan(String setting) {
        Objects.requireNonNull(setting, "setting");
        String s = setting.trim().toLowerCase(Locale.ROOT);
        if (s.equals("off")) {
            return OFF;
        }
        List<Integer> allowed = allowedCpus();
        if (allowed.isEmpty()) {
            return new CpuPinning(List.of(), List.of(), "this system does not say which CPUs the lab may use");
        }
        if (taskset() == null) {
            return new CpuPinning(List.of(), List.of(), "taskset (util-linux) is not installed");
        }
        List<Integer> server = s.equals("auto") ? List.of(allowed.get(0)) : parseList(setting);
        if (!allowed.containsAll(server)) {
            throw new IllegalArgumentException("--pin: CPUs " + setting + " are not all among this process's CPUs "
                    + format(allowed));
        }
        List<Integer> lab = new ArrayList<>(allowed);
        lab.removeAll(server);
        if (lab.isEmpty()) {
            return new CpuPinning(List.of(), List.of(), allowed.size() == 1 ? "one CPU only"
                    : "no CPU left for the lab besides the server's " + format(server));
        }
        return new CpuPinning(server, lab, null);
    }

    /** Whether processes are pinned. */
    public boolean pinned() {
        return why == null;
    }

    /** The words put before the server's command: {@code taskset -c 0}, or nothing. */
    public List<String> serverLauncher() {
        return pinned() ? List.of(taskset(), "-c", format(serverCpus)) : List.of();
    }

    /** One line for reports: {@code server on CPU 0, its JIT compiler, generator and UAS on CPU 1}, or why not pinned. */
    public String describe() {
        return pinned() ? "server on CPU " + format(serverCpus) + ", its JIT compiler, generator and UAS on CPU "
                + format(labCpus)
                : "not pinned: " + why;
    }

    /**
     * Moves every thread of this JVM (and so the threads and processes it starts later) to the lab's
     * CPUs; the returned handle moves them back to where they were. Does nothing when not pinned.
     *
     * @throws IOException taskset failed
     */
    public AutoCloseable pinLab() throws IOException, InterruptedException {
        if (!pinned()) {
            return () -> { };
        }
        List<Integer> before = allowedCpus();
        setOwnAffinity(labCpus);
        log.info("pinned: {}", describe());
        return () -> setOwnAffinity(before);
    }

    /**
     * Moves threads of the server (its JIT compiler threads) to the lab's CPUs, so that compiling does
     * not take the server's own CPUs while its calls are measured. Does nothing when not pinned.
     *
     * @throws IOException taskset failed
     */
    public void moveToLab(List<Long> threadIds) throws IOException, InterruptedException {
        if (!pinned()) {
            return;
        }
        for (long id : threadIds) {
            taskset(List.of("-p", "-c", format(labCpus), Long.toString(id)));
        }
    }

    private static void setOwnAffinity(List<Integer> cpus) throws IOException, InterruptedException {
        taskset(List.of("-a", "-p", "-c", format(cpus), Long.toString(ProcessHandle.current().pid())));
    }

    private static void taskset(List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(taskset());
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("taskset did not finish in 30 s");
        }
        if (p.exitValue() != 0) {
            throw new IOException("taskset " + String.join(" ", args) + " failed (" + p.exitValue() + "): " + said);
        }
    }

    /** This process's CPUs, from {@code /proc/self/status}; empty when unknown. */
    public static List<Integer> allowedCpus() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parseList(line.substring(line.indexOf(':') + 1));
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("cannot read this process's CPUs: {}", e.toString());
        }
        return List.of();
    }

    /** A CPU list as taskset and the kernel write it ({@code 0-2,5}), sorted and without repeats. */
    static List<Integer> parseList(String text) {
        TreeSet<Integer> cpus = new TreeSet<>();
        for (String part : text.trim().split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            try {
                int dash = p.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).trim());
                int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1).trim());
                if (from < 0 || to < from || to - from > 4096) {
                    throw new NumberFormatException(p);
                }
                for (int c = from; c <= to; c++) {
                    cpus.add(c);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--pin: \"" + text.trim() + "\" is not a CPU list (e.g. 0, 0-1, 2,3)", e);
            }
        }
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException("--pin: no CPU in \"" + text.trim() + "\"");
        }
        return List.copyOf(cpus);
    }

    /** A CPU list written as taskset reads it: {@code 0,2,3}. */
    static String format(List<Integer> cpus) {
        return cpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static String taskset() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "taskset");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
