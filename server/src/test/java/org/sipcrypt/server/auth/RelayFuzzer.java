package org.sipcrypt.server.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Mutations of real in-dialog messages for the fuzz of the relays: line-level and token-level edits
 * that keep a message SIP-shaped (a header dropped, repeated, renamed with another case, compact form,
 * blank or control character; a tag, Call-ID, Max-Forwards, Route signature, Request-URI, Via or status
 * replaced; line ends and folding changed; a body with a wrong length), so that the mutants reach
 * the relays' decisions instead of the framer's refusals. Every address a mutant carries is one of
 * {@link #hosts}, all loopback (no shorthand, no name to resolve): {@link #safe} is checked on every
 * mutant before it is sent, and one that fails is skipped. Mutant {@code i} of a seed is a pure
 * function of {@code (seed, i)}. Used by {@code RelayFuzzIT} and by the fast path's differential fuzz
 * ({@code org.sipcrypt.server.sip.proxy.FastPathAgreesWithTheStackIT}).
 * Threading: not thread-safe; one fuzzing thread.
 */
public final class RelayFuzzer {

    /** Hosts and host:port forms wherever an address may appear. */
    private static final Pattern HOST_CONTEXT = Pattern.compile(
            "(?i)(?:sips?:(?:[^@\\s;>,?]*@)?|SIP/2\\.0/[A-Za-z]+[ \\t]+|received=|maddr=)(\\[[^\\]]*\\]|[^\\s;:>,?\"]*)");
    /** Anything that looks like a dotted number standing alone, wherever it is (not inside a branch's hex). */
    private static final Pattern DOTTED = Pattern.compile("(?<![A-Za-z0-9])\\d+(?:\\.\\d+)+(?![A-Za-z0-9])");
    private static final String[] NAME_SPELLINGS = {"%s", "%S", "%s ", "%s\t", "%s\u0001", " %s", "%s\u0000", "X-%s"};
    private static final String[] COMPACT = {"Call-ID=i", "From=f", "To=t", "Via=v", "Content-Length=l",
            "Contact=m", "Content-Type=c"};
    private static final String[] MAX_FORWARDS = {"0", "1", "70", "255", "256", "-1", "abc", "", "007"};
    private static final String[] STATUSES = {"100", "180", "183", "200", "202", "299", "486", "699", "099", "2000"};
    private static final String[] METHODS = {"ACK", "BYE", "INVITE", "OPTIONS", "CANCEL", "INFO", "ack", "bye"};

    private final List<String> hosts;
    private final List<String> values;

    /**
     * @param hosts  the only hosts a mutant may name ({@code a.b.c.d}), each a loopback address
     * @param values tokens worth putting where a tag, Call-ID or branch was (the real ones among them)
     */
    public RelayFuzzer(List<String> hosts, List<String> values) {
        for (String h : hosts) {
            if (!h.startsWith("127.") || h.split("\\.").length != 4) {
                throw new IllegalArgumentException("not a dotted loopback address: " + h);
            }
        }
        this.hosts = List.copyOf(hosts);
        this.values = List.copyOf(values);
    }

    /** Mutant {@code index} of {@code seed} (one to four edits), not yet checked by {@link #safe}. */
    public String mutate(String seed, long seedNumber, long index, List<String> addresses) {
        SplittableRandom random = new SplittableRandom(seedNumber * 1_000_003L + index);
        String m = seed;
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits; e++) {
            m = edit(m, random, addresses);
        }
        return m;
    }

    /** Whether every host {@code message} names, and every dotted number in it, is one of {@link #hosts}. */
    public boolean safe(String message) {
        Matcher hm = HOST_CONTEXT.matcher(message);
        while (hm.find()) {
            String host = hm.group(1);
            if (!host.isEmpty() && !hosts.contains(host)) {
                return false;
            }
        }
        Matcher dm = DOTTED.matcher(message);
        while (dm.find()) {
            String d = dm.group();
            if (!d.equals("2.0") && !hosts.contains(d)) {
                return false;
            }
        }
        // no host can hide behind an escape, an IPv6 reference or a name without a scheme
        return message.indexOf('%') < 0 && message.indexOf('[') < 0;
    }

    private String edit(String m, SplittableRandom r, List<String> addresses) {
        int headEnd = m.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            return m;
        }
        List<String> lines = new ArrayList<>(List.of(m.substring(0, headEnd).split("\r\n", -1)));
        String body = m.substring(headEnd + 4);
        int pick = lines.size() > 1 ? 1 + r.nextInt(lines.size() - 1) : 0;
        String line = lines.get(pick);
        int colon = line.indexOf(':');
        switch (r.nextInt(16)) {
            case 0 -> lines.remove(pick);
            case 1 -> lines.add(1 + r.nextInt(lines.size()), line);
            case 2 -> {
                if (colon > 0) {
                    String name = line.substring(0, colon).trim();
                    String spelling = NAME_SPELLINGS[r.nextInt(NAME_SPELLINGS.length)];
                    String renamed = spelling.contains("%S") ? name.toUpperCase(Locale.ROOT)
                            : String.format(spelling, r.nextBoolean() ? name : name.toLowerCase(Locale.ROOT));
                    lines.set(pick, renamed + line.substring(colon));
                }
            }
            case 3 -> {
                if (colon > 0) {
                    String name = line.substring(0, colon).trim();
                    for (String c : COMPACT) {
                        String[] pair = c.split("=");
                        if (pair[0].equalsIgnoreCase(name)) {
                            lines.set(pick, pair[1] + line.substring(colon));
                        } else if (pair[1].equalsIgnoreCase(name)) {
                            lines.set(pick, pair[0] + line.substring(colon));
                        }
                    }
                }
            }
            case 4 -> replaceParam(lines, r, "tag");
            case 5 -> setHeader(lines, r, "Call-ID", values.get(r.nextInt(values.size())));
            case 6 -> setHeader(lines, r, "Max-Forwards", MAX_FORWARDS[r.nextInt(MAX_FORWARDS.length)]);
            case 7 -> {
                // a second tag, a tag without value, or one in the URI
                int at = findHeader(lines, r.nextBoolean() ? "From" : "To");
                if (at >= 0) {
                    String v = values.get(r.nextInt(values.size()));
                    String[] forms = {";tag=" + v, ";tag=", ";TAG=" + v, " ; tag = " + v};
                    lines.set(at, lines.get(at) + forms[r.nextInt(forms.length)]);
                }
            }
            case 8 -> {
                // the route's signature altered: one character, its padding, or dropped
                int at = findHeader(lines, "Route");
                if (at >= 0) {
                    String l = lines.get(at);
                    int sig = l.indexOf("sc-dlg=");
                    if (sig >= 0) {
                        int end = sig + 7;
                        while (end < l.length() && l.charAt(end) != ';' && l.charAt(end) != '>') {
                            end++;
                        }
                        String v = l.substring(sig + 7, end);
                        String[] forms = {v + "==", v + "=", v.isEmpty() ? "A" : flip(v, r), "", v + "A",
                                v.toUpperCase(Locale.ROOT)};
                        lines.set(at, l.substring(0, sig + 7) + forms[r.nextInt(forms.length)] + l.substring(end));
                    } else {
                        lines.remove(at);
                    }
                }
            }
            case 9 -> {
                // the Request-URI (or status) aimed elsewhere
                String start = lines.get(0);
                if (start.startsWith("SIP/2.0 ")) {
                    lines.set(0, "SIP/2.0 " + STATUSES[r.nextInt(STATUSES.length)] + " Fuzzed");
                } else {
                    String[] parts = start.split(" ");
                    String target = addresses.get(r.nextInt(addresses.size()));
                    String[] params = {"", ";transport=udp", ";transport=tcp", ";lr", ";maddr=" + hosts.get(0)};
                    lines.set(0, parts[0] + " sip:fuzz@" + target + params[r.nextInt(params.length)] + " SIP/2.0");
                }
            }
            case 10 -> {
                // a Route added in front, to us or another
                String target = addresses.get(r.nextInt(addresses.size()));
                lines.add(1, "Route: <sip:" + target + (r.nextBoolean() ? ";lr>" : ">"));
            }
            case 11 -> {
                int at = findHeader(lines, "Via");
                if (at >= 0) {
                    String target = addresses.get(r.nextInt(addresses.size()));
                    String[] forms = {"Via: SIP/2.0/UDP " + target + ";branch=z9hG4bK-" + values.get(r.nextInt(values.size())),
                            lines.get(at) + ";branch=z9hG4bK-second", lines.get(at).replace(";rport", ""),
                            lines.get(at) + ";received=" + hosts.get(r.nextInt(hosts.size())),
                            lines.get(at).replace("SIP/2.0/UDP", "SIP/2.0/TCP")};
                    lines.set(at, forms[r.nextInt(forms.length)]);
                }
            }
            case 12 -> {
                String start = lines.get(0);
                int blank = start.indexOf(' ');
                if (!start.startsWith("SIP/2.0") && blank > 0) {
                    lines.set(0, METHODS[r.nextInt(METHODS.length)] + start.substring(blank));
                }
            }
            case 13 -> {
                // line ends and folding
                String head = String.join("\r\n", lines);
                return r.nextBoolean() ? (head + "\r\n\r\n" + body).replace("\r\n", "\n")
                        : head.replaceFirst("\r\n(From|To|Call-ID|Via): ", "\r\n$1:\r\n ") + "\r\n\r\n" + body;
            }
            case 14 -> {
                String b = "v=0\r\n".repeat(1 + r.nextInt(3));
                int at = findHeader(lines, "Content-Length");
                String[] lengths = {Integer.toString(b.length()), "0", Integer.toString(b.length() + 5), "x"};
                if (at >= 0) {
                    lines.set(at, "Content-Length: " + lengths[r.nextInt(lengths.length)]);
                }
                body = b;
            }
            default -> {
                // CSeq number or method changed
                int at = findHeader(lines, "CSeq");
                if (at >= 0) {
                    String[] forms = {"CSeq: " + r.nextInt(1 << 20) + " BYE", "CSeq: 2 ACK", "CSeq: 1 INVITE",
                            "CSeq: 4294967296 BYE", "CSeq: x BYE", "CSeq: 1"};
                    lines.set(at, forms[r.nextInt(forms.length)]);
                }
            }
        }
        return String.join("\r\n", lines) + "\r\n\r\n" + body;
    }

    private void replaceParam(List<String> lines, SplittableRandom r, String param) {
        int at = findHeader(lines, r.nextBoolean() ? "From" : "To");
        if (at < 0) {
            return;
        }
        String l = lines.get(at);
        int p = l.indexOf(";" + param + "=");
        String v = values.get(r.nextInt(values.size()));
        lines.set(at, p < 0 ? l + ";" + param + "=" + v : l.substring(0, p) + ";" + param + "=" + v);
    }

    private static void setHeader(List<String> lines, SplittableRandom r, String name, String value) {
        int at = findHeader(lines, name);
        if (at < 0 || r.nextInt(4) == 0) {
            lines.add(1 + r.nextInt(lines.size()), name + ": " + value);
        } else {
            lines.set(at, name + ": " + value);
        }
    }

    private static int findHeader(List<String> lines, String name) {
        for (int i = 1; i < lines.size(); i++) {
            String l = lines.get(i);
            int colon = l.indexOf(':');
            if (colon > 0 && l.substring(0, colon).trim().equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    private static String flip(String v, SplittableRandom r) {
        int i = r.nextInt(v.length());
        char c = v.charAt(i);
        return v.substring(0, i) + (c == 'A' ? 'B' : 'A') + v.substring(i + 1);
    }
}
