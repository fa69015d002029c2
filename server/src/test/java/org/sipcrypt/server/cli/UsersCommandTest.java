package org.sipcrypt.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.EmbeddedDatabase;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.location.SubscriberStore;
import picocli.CommandLine;

/** {@code users} against an embedded database in a temporary data directory. */
@Timeout(60)
class UsersCommandTest {

    @TempDir
    Path dir;

    private StringWriter out;
    private StringWriter err;

    private int users(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        CommandLine cl = new CommandLine(new UsersCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--data-dir";
        all[args.length + 1] = dir.resolve("data").toString();
        return cl.execute(all);
    }

    private Map<String, Subscriber> stored(String realm, List<String> names) throws Exception {
        try (Database db = EmbeddedDatabase.open(dir.resolve("data"), "sa", "", 1)) {
            return new SubscriberStore(db.dataSource()).find(realm, names);
        }
    }

    @Test
    void addStoresHa1ForBothAlgorithmsAndNoPassword() throws Exception {
        assertEquals(0, users("add", "alice", "s3cret", "--realm", "example.org"), err.toString());
        assertTrue(out.toString().contains("added alice in realm example.org"), out.toString());
        Subscriber s = stored("example.org", List.of("alice")).get("alice");
        assertEquals(DigestAlgorithm.MD5.ha1("alice", "example.org", "s3cret"), s.ha1Md5());
        assertEquals(DigestAlgorithm.SHA_256.ha1("alice", "example.org", "s3cret"), s.ha1Sha256());
        assertTrue(s.enabled());
        assertEquals(0, users("add", "alice", "other", "--realm", "example.org"));
        assertTrue(out.toString().contains("updated alice"), out.toString());
    }

    @Test
    void realmDefaultsToTheHostOfTheFirstListener() throws Exception {
        assertEquals(0, users("add", "bob", "pw"));
        assertTrue(stored("127.0.0.1", List.of("bob")).containsKey("bob"));
    }

    @Test
    void generateWritesUsersAndTheSippInjectionFile() throws Exception {
        Path csv = dir.resolve("users.csv");
        assertEquals(0, users("generate", "--count", "250", "--csv", csv.toString()), err.toString());
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        assertEquals(251, lines.size());
        assertEquals("SEQUENTIAL", lines.get(0));
        assertEquals("user1;pass1", lines.get(1));
        assertEquals("user250;pass250", lines.get(250));
        Subscriber s = stored("127.0.0.1", List.of("user250")).get("user250");
        assertEquals(DigestAlgorithm.MD5.ha1("user250", "127.0.0.1", "pass250"), s.ha1Md5());
        assertEquals(0, users("list"));
        assertEquals(250, out.toString().lines().count());
    }

    @Test
    void importReadsTheInjectionFormatAndPlainCsv() throws Exception {
        Path csv = dir.resolve("in.csv");
        Files.writeString(csv, "SEQUENTIAL\nann;one\n# a comment\n\nben,two\n");
        assertEquals(0, users("import", csv.toString()), err.toString());
        assertTrue(out.toString().contains("imported 2 subscribers"), out.toString());
        assertEquals(2, stored("127.0.0.1", List.of("ann", "ben")).size());
        Files.writeString(csv, "ann;one\nbroken-line\n");
        assertEquals(2, users("import", csv.toString()));
        assertTrue(err.toString().contains("line 2"), err.toString());
    }

    @Test
    void removeOfAnUnknownUserFailsAndOfAKnownOneWorks() throws Exception {
        assertEquals(0, users("add", "carl", "pw"));
        assertEquals(1, users("remove", "nobody"));
        assertTrue(err.toString().contains("no subscriber nobody"), err.toString());
        assertEquals(0, users("remove", "carl"));
        assertTrue(stored("127.0.0.1", List.of("carl")).isEmpty());
    }

    @Test
    void badArgumentsExitWithTwo() {
        assertEquals(2, users("generate", "--count", "0"));
        assertEquals(2, users("generate", "--count", "3", "--user-pattern", "user%q"));
        assertEquals(2, users("add", "a".repeat(129), "pw"));
    }
}
