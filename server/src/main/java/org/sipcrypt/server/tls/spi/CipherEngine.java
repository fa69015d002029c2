package org.sipcrypt.server.tls.spi;

import java.security.SecureRandom;
import java.util.Locale;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCrypto;

/**
 * Where the cryptography of the {@link TlsEngine#BC} TLS engine runs: Bouncy Castle's lightweight
 * (pure Java) engines, or the JCA providers installed in the JVM (the JDK's SunJCE, which uses
 * AES-NI for AES). A provider lists the ones that implement its bulk cipher.
 * Threading: immutable.
 */
public enum CipherEngine {
    /** {@code BcTlsCrypto}: Bouncy Castle's lightweight engines. */
    BC {
        @Override
        public TlsCrypto crypto(SecureRandom random) {
            return new BcTlsCrypto(random);
        }
    },
    /** {@code JcaTlsCrypto} over the JVM's JCA providers. */
    JCA {
        @Override
        public TlsCrypto crypto(SecureRandom random) {
            return new JcaTlsCrypto(new BcJcaHelper(), random, new SecureRandom()) {
            };
        }
    };

    /** A {@code TlsCrypto} of this engine for the BC TLS engine. */
    public abstract TlsCrypto crypto(SecureRandom random);

    /** The name in configuration and reports: {@code bc}, {@code jca}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
