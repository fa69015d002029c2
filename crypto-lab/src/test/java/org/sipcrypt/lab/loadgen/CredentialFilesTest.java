package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.UsersCommand;
import picocli.CommandLine;

/** The users file: what the server's users command writes, both separators, and bad lines. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CredentialFilesTest {

    @TempDir
    Path dir;

    @Test
    void theFileOfTheServersUsersGenerateIsReadInOrder() throws Exception {
        Path csv = dir.resolve("users.csv");
        assertEquals(0, new CommandLine(new UsersCommand()).execute("--data-dir", dir.resolve("data").toString(),
                "--realm", "lab.test", "generate", "--count", "3", "--csv", csv.toString()));
        assertEquals(List.of(new Credential("user1", "pass1"), new Credential("user2", "pass2"),
                new Credential("user3", "pass3")), CredentialFiles.read(csv));
    }

    @Test
    void commasBlankLinesAndCommentsAreAccepted() {
        List<Credential> got = CredentialFiles.parse(List.of("", "# lab users", "alice,secret", "bob;pw;extra", ""), "f");
        assertEquals(List.of(new Credential("alice", "secret"), new Credential("bob", "pw")), got);
    }

    @Test
    void aLineWithoutPasswordOrAFileWithoutUsersIsRefusedNamingTheLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CredentialFiles.parse(List.of("SEQUENTIAL", "user1;pass1", "user2"), "users.csv"));
        assertTrue(e.getMessage().contains("users.csv line 3"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CredentialFiles.parse(List.of("SEQUENTIAL"), "users.csv"));
        assertThrows(IllegalArgumentException.class, () -> CredentialFiles.parse(List.of(";nobody"), "users.csv"));
    }

    @Test
    void aCredentialPrintsNoPassword() {
        assertFalse(new Credential("user1", "pass1").toString().contains("pass1"));
    }
}
