package org.sipcrypt.server.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.sipcrypt.server.tls.LabCertificates;
import org.sipcrypt.server.tls.PemFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code certs --out DIR}: a lab CA, a server certificate and a client certificate made with
 * Bouncy Castle, as {@code ca.pem}, {@code server.pem}, {@code server-key.pem}, {@code client.pem}
 * and {@code client-key.pem} (keys PKCS#8, readable by their owner only), so that a TLS server and
 * client can be started in one step. RSA-2048 by default, ECDSA P-256 with {@code --key-type ecdsa}.
 * Exit codes: 0 written, 1 a file could not be written, 2 bad arguments or files already there.
 * Threading: main thread only.
 */
@Command(name = "certs", mixinStandardHelpOptions = true,
        description = "Make a lab CA with a server and a client certificate (PEM) for SIP over TLS.")
public final class CertsCommand implements Callable<Integer> {

    static final List<String> FILES = List.of("ca.pem", "server.pem", "server-key.pem", "client.pem", "client-key.pem");

    @Spec
    CommandSpec spec;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory to write into (created).")
    Path out;

    @Option(names = "--san", paramLabel = "NAME", split = ",", defaultValue = "127.0.0.1,localhost",
            description = "Server names: IP addresses and DNS names (default: 127.0.0.1,localhost).")
    List<String> san;

    @Option(names = "--key-type", paramLabel = "rsa|ecdsa", defaultValue = "rsa",
            description = "Key algorithm (default: rsa).")
    String keyType;

    @Option(names = "--rsa-bits", paramLabel = "N", defaultValue = "2048", description = "RSA key size (default: 2048).")
    int rsaBits;

    @Option(names = "--days", paramLabel = "N", defaultValue = "365", description = "Validity in days (default: 365).")
    int days;

    @Option(names = "--client-name", paramLabel = "NAME", defaultValue = "sipcrypt-client",
            description = "Common name of the client certificate (default: sipcrypt-client).")
    String clientName;

    @Option(names = "--force", description = "Replace files already in DIR.")
    boolean force;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        LabCertificates.KeyType type;
        try {
            type = LabCertificates.KeyType.parse(keyType);
            if (days < 1 || days > 36_500) {
                throw new IllegalArgumentException("--days must be 1 to 36500");
            }
            if (type == LabCertificates.KeyType.RSA && (rsaBits < 2048 || rsaBits > 8192)) {
                throw new IllegalArgumentException("--rsa-bits must be 2048 to 8192");
            }
        } catch (IllegalArgumentException e) {
            err.println("sipcrypt certs: " + e.getMessage());
            return UsersCommand.EXIT_USAGE;
        }
        try {
            Files.createDirectories(out);
            for (String f : FILES) {
                Path p = out.resolve(f);
                if (Files.exists(p)) {
                    if (!force) {
                        err.println("sipcrypt certs: " + p + " exists (--force replaces it)");
                        return UsersCommand.EXIT_USAGE;
                    }
                    Files.delete(p);
                }
            }
            LabCertificates ca = LabCertificates.create("sipcrypt lab CA", type, rsaBits, Duration.ofDays(days));
            LabCertificates.Issued server = ca.server(san);
            LabCertificates.Issued client = ca.client(clientName, List.of());
            PemFiles.writeCertificates(out.resolve("ca.pem"), List.of(ca.caCertificate()));
            PemFiles.writeCertificates(out.resolve("server.pem"), List.of(server.certificate()));
            PemFiles.writePrivateKey(out.resolve("server-key.pem"), server.keys().getPrivate());
            PemFiles.writeCertificates(out.resolve("client.pem"), List.of(client.certificate()));
            PemFiles.writePrivateKey(out.resolve("client-key.pem"), client.keys().getPrivate());
        } catch (IllegalArgumentException e) {
            err.println("sipcrypt certs: --san: " + e.getMessage());
            return UsersCommand.EXIT_USAGE;
        } catch (IOException | GeneralSecurityException e) {
            err.println("sipcrypt certs: " + e.getMessage());
            return UsersCommand.EXIT_FAILED;
        }
        spec.commandLine().getOut().println("wrote " + String.join(", ", FILES) + " to " + out + " ("
                + (type == LabCertificates.KeyType.RSA ? "RSA-" + rsaBits : "ECDSA P-256") + ", server names " + san
                + ", valid " + days + " days; lab use only)");
        return 0;
    }
}
