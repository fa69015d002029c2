package org.sipcrypt.server.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CRL;
import java.security.cert.CRLException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Reads certificate revocation lists (RFC 5280 §5) for {@code tls.crl}: a DER file, or a PEM file
 * holding one or more {@code -----BEGIN X509 CRL-----} blocks, by the JDK's X.509 factory. Anything
 * else, including bytes the factory trips over, is refused with an {@link IOException} naming the file.
 * A file may be at most {@link #MAX_BYTES} long.
 * Threading: stateless; thread-safe; blocks on file I/O (never call on an event loop).
 */
public final class CrlFiles {

    /** The longest CRL file read: 64 MiB, above the largest public CAs' lists. */
    public static final long MAX_BYTES = 64L << 20;

    private CrlFiles() {
    }

    /** The CRLs of {@code file}. */
    public static List<X509CRL> read(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
            throw new IOException("tls.crl \"" + file + "\": " + size + " bytes (expected at most " + MAX_BYTES + ")");
        }
        return parse(Files.readAllBytes(file), "tls.crl \"" + file + "\"");
    }

    /**
     * The CRLs in {@code bytes}, DER or PEM.
     *
     * @param what names the source in the message of the refusal
     * @throws IOException when the bytes hold no CRL, or anything but CRLs
     */
    public static List<X509CRL> parse(byte[] bytes, String what) throws IOException {
        Collection<? extends CRL> crls;
        try {
            crls = CertificateFactory.getInstance("X.509").generateCRLs(new ByteArrayInputStream(bytes));
        } catch (CertificateException e) {
            throw new IllegalStateException("this JVM has no X.509 certificate factory", e);
        } catch (CRLException | RuntimeException e) {
            // the JDK's DER reader answers some malformed input with runtime exceptions of its own:
            // for a file an operator gave, every one of them means "not a CRL"
            throw new IOException(what + ": not a PEM or DER CRL (" + e.getMessage() + ")", e);
        }
        List<X509CRL> out = new ArrayList<>(crls.size());
        for (CRL c : crls) {
            if (!(c instanceof X509CRL x)) {
                throw new IOException(what + ": holds a " + c.getType() + " CRL (expected X.509)");
            }
            out.add(x);
        }
        if (out.isEmpty()) {
            throw new IOException(what + ": holds no CRL (expected a PEM or DER X.509 CRL)");
        }
        return List.copyOf(out);
    }
}
