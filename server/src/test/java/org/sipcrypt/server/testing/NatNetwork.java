package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A phone behind a NAT box, built from network namespaces for one test: the phone's namespace
 * ({@value #PHONE} on a veth to the NAT), the NAT's namespace (masquerading everything it forwards
 * out of {@value #NAT}), and a veth end in the root namespace with {@value #SERVER}, where the server
 * under test listens. The phone's own address is unreachable from the server; the server sees the
 * phone as {@value #NAT} with a translated port. The root namespace gets an {@code unreachable}
 * route for the phone's network ({@value #PHONE_NETWORK}), so that whatever is sent there (a
 * server dialling the phone's Contact, media to the address in its SDP) fails at once here instead
 * of leaving the machine by its default route. Addresses are RFC 5737 documentation ranges; names
 * carry a per-run suffix; {@link #close} removes the namespaces, the interface and the route, also
 * after a failed build. Needs root, {@code ip} and {@code iptables}; fails with the reason when it cannot
 * build the network. One at a time per machine (the root namespace's address is fixed).
 * Threading: use from one test thread.
 */
public final class NatNetwork implements AutoCloseable {

    /** The phone's address, inside its namespace, behind the NAT. */
    public static final String PHONE = "198.51.100.2";
    /** The NAT's outside address: what the server sees as the phone's source. */
    public static final String NAT = "203.0.113.2";
    /** The root namespace's address on the link to the NAT: where the server listens. */
    public static final String SERVER = "203.0.113.1";
    /** The phone's network, unreachable from the root namespace. */
    public static final String PHONE_NETWORK = "198.51.100.0/24";

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final String phoneNs;
    private final String natNs;
    private final String rootLink;

    private NatNetwork(String suffix) {
        phoneNs = "scphone" + suffix;
        natNs = "scnat" + suffix;
        rootLink = "scn1" + suffix;
    }

    /** Builds the network; on any failure removes what was made and throws with the command's output. */
    public static NatNetwork create() throws IOException, InterruptedException {
        String suffix = Long.toString(ProcessHandle.current().pid() % 10_000) + RUNS.incrementAndGet();
        NatNetwork n = new NatNetwork(suffix);
        try {
            n.build(suffix);
        } catch (IOException | RuntimeException | InterruptedException e) {
            n.close();
            throw e;
        }
        return n;
    }

    private void build(String suffix) throws IOException, InterruptedException {
        String p0 = "scp0" + suffix;
        String p1 = "scp1" + suffix;
        String n0 = "scn0" + suffix;
        run("ip", "netns", "add", phoneNs);
        run("ip", "netns", "add", natNs);
        run("ip", "link", "add", p0, "type", "veth", "peer", "name", p1);
        run("ip", "link", "set", p0, "netns", phoneNs);
        run("ip", "link", "set", p1, "netns", natNs);
        run("ip", "link", "add", n0, "type", "veth", "peer", "name", rootLink);
        run("ip", "link", "set", n0, "netns", natNs);
        inNs(phoneNs, "ip", "addr", "add", PHONE + "/24", "dev", p0);
        inNs(phoneNs, "ip", "link", "set", p0, "up");
        inNs(phoneNs, "ip", "link", "set", "lo", "up");
        inNs(natNs, "ip", "addr", "add", "198.51.100.1/24", "dev", p1);
        inNs(natNs, "ip", "link", "set", p1, "up");
        inNs(natNs, "ip", "addr", "add", NAT + "/24", "dev", n0);
        inNs(natNs, "ip", "link", "set", n0, "up");
        run("ip", "addr", "add", SERVER + "/24", "dev", rootLink);
        run("ip", "link", "set", rootLink, "up");
        inNs(natNs, "sysctl", "-qw", "net.ipv4.ip_forward=1");
        inNs(natNs, "iptables", "-t", "nat", "-A", "POSTROUTING", "-o", n0, "-j", "MASQUERADE");
        inNs(phoneNs, "ip", "route", "add", "default", "via", "198.51.100.1");
        // replace: a route left by a killed run is taken over, and removed by this one's close
        run("ip", "route", "replace", "unreachable", PHONE_NETWORK);
        // the root side's address is usable once duplicate address detection is past (IPv4: at once)
    }

    /** {@code command} to run in the phone's namespace, for a {@link ProcessBuilder}. */
    public List<String> inPhone(List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", phoneNs));
        c.addAll(command);
        return c;
    }

    /** The server's address on the link to the NAT. */
    public InetAddress serverAddress() throws IOException {
        return InetAddress.getByName(SERVER);
    }

    private void inNs(String ns, String... command) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        c.addAll(List.of(command));
        run(c.toArray(String[]::new));
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": no end within 30 s");
        }
        String out = new String(p.getInputStream().readAllBytes());
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out.strip()
                    + " (building the NAT needs root, iproute2 and iptables)");
        }
        return out;
    }

    /** Removes the route, the interface and both namespaces (their veth ends go with them); never throws. */
    @Override
    public void close() {
        for (String[] c : List.of(new String[] {"ip", "route", "del", "unreachable", PHONE_NETWORK},
                new String[] {"ip", "link", "del", rootLink},
                new String[] {"ip", "netns", "del", phoneNs}, new String[] {"ip", "netns", "del", natNs})) {
            try {
                Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (IOException e) {
                // nothing of that name was made
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
