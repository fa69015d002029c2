package org.sipcrypt.server.config;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders the configuration reference, {@code docs/configuration.md}, from the table of settings
 * ({@link Setting}) and the presets: where settings come from, how values are written, what each
 * preset sets, and every key with its command-line option, the form of its value, its default and
 * its meaning, grouped by the part of the key before its first dot. The file is committed;
 * {@code ConfigurationReferenceTest} fails when it and the code disagree, naming {@link #REGENERATE}.
 * The text depends on the code only, never on the machine that renders it: a default that follows
 * the machine (the number of cores) is worded, not shown.
 * Threading: immutable (static methods only).
 */
public final class ConfigurationReference {

    /** The command, run at the top of the repository, that writes {@code docs/configuration.md} again. */
    public static final String REGENERATE =
            "./mvnw -q -pl server test -Dtest=ConfigurationReferenceTest -DwriteReference=true";

    /** Defaults that follow the machine, as the reference words them; each must equal the number of cores here. */
    private static final Map<Setting, String> MACHINE_DEFAULTS = Map.of(Setting.SIP_WORKERS, "the number of cores");

    /** The settings that name a preset, with their presets; ConfigLoader applies these keys first. */
    private static final Map<Setting, Presets<?>> PRESETS = Map.of(
            Setting.TLS_PRESET, TlsConfig.PRESETS,
            Setting.AUTH_PRESET, AuthConfig.PRESETS);

    private static final Pattern INTEGER_RANGE = Pattern.compile("\\(expected a whole number from (-?\\d+) to (-?\\d+)\\)");
    private static final String ZERO_REFUSED = "(expected a duration above zero)";

    private ConfigurationReference() {
    }

    /** Prints the reference to standard output, or writes it to the file given as the one argument. */
    public static void main(String... args) throws IOException {
        String text = markdown();
        if (args.length == 1) {
            Files.writeString(Path.of(args[0]), text, StandardCharsets.UTF_8);
        } else if (args.length == 0) {
            PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
            out.print(text);
            out.flush();
        } else {
            throw new IllegalArgumentException("expected no argument (print) or one file to write, got " + args.length);
        }
    }

    /**
     * The whole reference, with {@code \n} line ends.
     *
     * @throws IllegalStateException when the table has something this renderer does not know how to
     *                               word: a preset setting without its presets, a machine-dependent
     *                               default that no longer follows the machine, an unexpected value check
     */
    public static String markdown() {
        ServerConfig defaults = ServerConfig.defaults();
        StringBuilder md = new StringBuilder();
        md.append("# Configuration reference\n\n")
                .append("<!-- Generated from the settings table, server/src/main/java/org/sipcrypt/server/config/Setting.java,\n")
                .append("     by ConfigurationReference. Edit the table, not this file, then write it again with:\n")
                .append("     ").append(REGENERATE).append(" -->\n\n");
        sources(md);
        values(md);
        presets(md, defaults);
        keys(md, defaults);
        return md.toString();
    }

    private static void sources(StringBuilder md) {
        md.append("- The jar (`java -jar sipcrypt-server.jar`) takes every key as a command-line option and from one\n")
                .append("  configuration file, `--config FILE` (`.properties`, `.yaml` or `.yml`); an option wins over the\n")
                .append("  file for its key, and a key given by neither keeps its default: the server runs with no file at all.\n")
                .append("- The WAR takes the same keys, from the file named by the first found of the context parameter\n")
                .append("  `sipcrypt.config`, the system property `sipcrypt.config` and the environment variable\n")
                .append("  `SIPCRYPT_CONFIG`, and from context parameters named like a key (`tcp.idleTimeout`), which win over\n")
                .append("  the file.\n")
                .append("- No other environment variable or system property sets a key: `SIPCRYPT_LOG_LEVEL` sets the log\n")
                .append("  level only, and the Docker images' start scripts turn their `SIPCRYPT_*` variables into a file or\n")
                .append("  options.\n\n");
    }

    private static void values(StringBuilder md) {
        md.append("## Values\n\n")
                .append("- `DURATION`: `250ms`, `30s`, `5m`, `1h` or a bare number of seconds. `BOOL`: `true`, `false`, `on`,\n")
                .append("  `off`, `yes` or `no`; a flag option given alone (`--auth`) means `true`. `N`, `BYTES` and `PERCENT` are\n")
                .append("  whole numbers. The value column shows the range the server accepts.\n")
                .append("- A list key takes several items: repeat its option or separate the items with commas\n")
                .append("  (`--auth-methods REGISTER,INVITE`); in `.properties` the items go on one line, comma-separated\n")
                .append("  (`listen=udp:192.0.2.10:5060,tcp:192.0.2.10:5060`), in YAML in a sequence, and in a WAR context\n")
                .append("  parameter comma-separated. Giving a list key replaces its default list.\n")
                .append("- In YAML, nested maps are dotted keys: `tcp: {idleTimeout: 5m}` is `tcp.idleTimeout: 5m`. As `db`\n")
                .append("  is itself a value, its siblings are written dotted beside it (`db.user: sip`). Every value is read\n")
                .append("  as text, so `recordRoute: off` means off.\n")
                .append("- A secret is never logged: the effective configuration, logged once at start, shows it as\n")
                .append("  `<masked>`.\n")
                .append("- Bad configuration stops the jar at start with exit code 2, and fails the WAR's deployment, with a\n")
                .append("  message naming the key, the value and what was expected:\n")
                .append("  `sipcrypt: ").append(refusal(Setting.TCP_IDLE_TIMEOUT, "5x")).append("`.\n")
                .append("  An unknown key is refused too, in the file and on the command line; the WAR leaves context\n")
                .append("  parameters not named like a key alone.\n\n");
    }

    private static void presets(StringBuilder md, ServerConfig defaults) {
        for (Setting s : Setting.values()) {
            if (s.key().endsWith(".preset") && !PRESETS.containsKey(s)) {
                throw new IllegalStateException(s.key() + " names presets ConfigurationReference does not know");
            }
        }
        md.append("## Presets\n\n")
                .append("A preset names a whole group of settings. It is applied before the other keys, whatever their\n")
                .append("order, so keys given beside it change it; the effective configuration logged at start names the\n")
                .append("preset it matches, if any. Each preset sets, where it differs from the defaults:\n\n");
        for (Setting s : Setting.values()) {
            Presets<?> presets = PRESETS.get(s);
            if (presets == null) {
                continue;
            }
            md.append("| ").append(code(s.key())).append(" | sets |\n| --- | --- |\n");
            for (String name : presets.nameList()) {
                List<String> set = new ArrayList<>();
                ServerConfig c = load(Map.of(s.key(), List.of(name)));
                for (Setting t : Setting.values()) {
                    if (!PRESETS.containsKey(t) && !t.display(c).equals(t.display(defaults))) {
                        set.add(code(t.key() + "=" + t.display(c)));
                    }
                }
                md.append("| ").append(code(name)).append(" | ")
                        .append(set.isEmpty() ? "the defaults" : String.join(", ", set)).append(" |\n");
            }
            md.append('\n');
        }
    }

    private static void keys(StringBuilder md, ServerConfig defaults) {
        md.append("## Keys\n\n")
                .append("Grouped by the part of the key before its first dot, keys without one first; in each group in the\n")
                .append("order of `--help`.\n");
        for (Map.Entry<String, List<Setting>> group : groups().entrySet()) {
            md.append("\n### ").append(group.getKey().isEmpty() ? "Keys without a prefix" : "`" + group.getKey() + "`")
                    .append("\n\n| key | option | value | default | meaning |\n| --- | --- | --- | --- | --- |\n");
            for (Setting s : group.getValue()) {
                md.append("| ").append(code(s.key())).append(" | ").append(code(s.option())).append(" | ")
                        .append(valueForm(s)).append(" | ").append(defaultCell(s, defaults)).append(" | ")
                        .append(cell(s.description())).append(" |\n");
            }
        }
    }

    /**
     * The keys by group: the part before the first dot ({@code tcp} for {@code tcp.idleTimeout}); a key
     * without a dot heads the group of that name if there is one ({@code db}), else it goes to the
     * group of keys without a prefix, named "" and listed first.
     */
    private static Map<String, List<Setting>> groups() {
        Map<String, List<Setting>> groups = new LinkedHashMap<>();
        groups.put("", new ArrayList<>());
        for (Setting s : Setting.values()) {
            int dot = s.key().indexOf('.');
            String group = dot > 0 ? s.key().substring(0, dot) : s.key();
            if (dot < 0 && Arrays.stream(Setting.values()).noneMatch(t -> t.key().startsWith(s.key() + "."))) {
                group = "";
            }
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(s);
        }
        groups.values().removeIf(List::isEmpty);
        return groups;
    }

    private static String valueForm(Setting s) {
        StringBuilder v = new StringBuilder(code(s.paramLabel()));
        switch (s.paramLabel()) {
            case "N", "BYTES", "PERCENT" -> v.append(", ").append(integerRange(s));
            case "DURATION" -> v.append(zeroAccepted(s) ? ", 0 or more" : ", above 0");
            default -> { }
        }
        if (s.repeatable()) {
            v.append(", list");
        }
        if (s.flag()) {
            v.append(", flag");
        }
        if (s.secret()) {
            v.append(", secret");
        }
        return v.toString();
    }

    private static String defaultCell(Setting s, ServerConfig defaults) {
        String shown = s.defaultText();
        String worded = MACHINE_DEFAULTS.get(s);
        if (worded != null) {
            String here = String.valueOf(Runtime.getRuntime().availableProcessors());
            if (!shown.equals(here)) {
                throw new IllegalStateException(s.key() + ": default " + shown + " no longer follows the number of cores ("
                        + here + "); take it out of ConfigurationReference.MACHINE_DEFAULTS");
            }
            return worded;
        }
        // "none" for no value (not the value none of tls.clientAuth) and worded defaults ("embedded H2
        // under data") are prose; the rest are values
        boolean empty = s.secret() ? shown.equals("none") : s.display(defaults).equals("(none)");
        return empty || shown.contains(" ") ? cell(shown) : code(shown);
    }

    /** The range the setting's parser accepts, read from its answer to a value that is no number. */
    private static String integerRange(Setting s) {
        String message = refusal(s, "not-a-number");
        Matcher m = INTEGER_RANGE.matcher(message);
        if (!m.find()) {
            throw new IllegalStateException(s.key() + ": no range in \"" + message + "\"");
        }
        return String.format(Locale.ROOT, "%,d to %,d", Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
    }

    /** Whether the setting's parser takes a zero duration. */
    private static boolean zeroAccepted(Setting s) {
        try {
            s.apply(new ServerConfig.Builder(), List.of("0"));
            return true;
        } catch (ConfigException e) {
            if (!e.getMessage().endsWith(ZERO_REFUSED)) {
                throw new IllegalStateException(s.key() + ": unexpected answer to 0: " + e.getMessage(), e);
            }
            return false;
        }
    }

    /** The message with which the setting's parser refuses {@code value}. */
    private static String refusal(Setting s, String value) {
        try {
            s.apply(new ServerConfig.Builder(), List.of(value));
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new IllegalStateException(s.key() + ": \"" + value + "\" was accepted");
    }

    private static ServerConfig load(Map<String, List<String>> given) {
        try {
            return ConfigLoader.load(null, given);
        } catch (ConfigException e) {
            throw new IllegalStateException("cannot load " + given + ": " + e.getMessage(), e);
        }
    }

    /** Prose made safe for a Markdown table cell: pipes and emphasis stars escaped, no HTML. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("*", "\\*").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** A code span in a table cell: only the pipe needs its escape there (GitHub Flavored Markdown). */
    private static String code(String text) {
        if (text.contains("`")) {
            throw new IllegalArgumentException("a backtick in " + text);
        }
        return "`" + text.replace("|", "\\|") + "`";
    }
}
