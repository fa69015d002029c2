package org.sipcrypt.server.tls.bc;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.Map;
import org.bouncycastle.tls.SecurityParameters;
import org.bouncycastle.tls.crypto.TlsCipher;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCrypto;
import org.sipcrypt.server.tls.spi.BcJcaHelper;
import org.sipcrypt.server.tls.spi.CipherEngine;

/**
 * The {@code TlsCrypto} of the bc TLS engine: the handshake (RSA, ECDHE, PRF, hashes) on the JVM's
 * JCA providers, and each suite's record protection (bulk cipher and record MAC) on the crypto
 * engine its provider was configured with: SunJCE (AES-NI for AES) or Bouncy Castle's lightweight
 * engines (the only ones with SEED and Camellia here). Keys reach the record layer as bytes, so the
 * two halves need no common key type. ML-KEM, for the hybrid groups, always runs on Bouncy Castle's
 * provider ({@link BcJcaHelper}).
 * Threading: thread-safe; one instance serves every connection of a listener.
 */
final class BulkCipherCrypto extends JcaTlsCrypto {

    private final BcTlsCrypto lightweight;
    private final Map<Integer, CipherEngine> bySuite;

    /** @param bySuite per suite code, where its record protection runs */
    BulkCipherCrypto(SecureRandom random, Map<Integer, CipherEngine> bySuite) {
        super(new BcJcaHelper(), random, new SecureRandom());
        this.lightweight = new BcTlsCrypto(random);
        this.bySuite = Map.copyOf(bySuite);
    }

    @Override
    public boolean hasEncryptionAlgorithm(int encryptionAlgorithm) {
        return super.hasEncryptionAlgorithm(encryptionAlgorithm) || lightweight.hasEncryptionAlgorithm(encryptionAlgorithm);
    }

    @Override
    public TlsCipher createCipher(TlsCryptoParameters params, int encryptionAlgorithm, int macAlgorithm)
            throws IOException {
        SecurityParameters sp = params.getSecurityParametersHandshake();
        if (sp == null) {
            sp = params.getSecurityParametersConnection();
        }
        if (bySuite.get(sp.getCipherSuite()) == CipherEngine.BC) {
            return lightweight.createCipher(params, encryptionAlgorithm, macAlgorithm);
        }
        return super.createCipher(params, encryptionAlgorithm, macAlgorithm);
    }
}
