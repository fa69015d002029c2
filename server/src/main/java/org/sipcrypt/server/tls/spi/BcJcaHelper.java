package org.sipcrypt.server.tls.spi;

import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Security;
import java.util.Locale;
import javax.crypto.KeyGenerator;
import org.bouncycastle.jcajce.util.DefaultJcaJceHelper;
import org.bouncycastle.jcajce.util.ProviderJcaJceHelper;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/**
 * The JCA helper of the bc TLS engine's JCA crypto: every algorithm from the JVM's providers in
 * their order, as Bouncy Castle's default helper takes them, except ML-KEM, which always comes from
 * Bouncy Castle's provider. A JVM whose own provider has ML-KEM (JDK 24 and later; Debian's OpenJDK
 * 17.0.21 backports it to SunJCE) would otherwise hand BC's TLS keys of another provider's classes
 * for its hybrid groups (X25519MLKEM768 and the others), which it then reports unavailable.
 * Threading: thread-safe; holds no state but the provider.
 */
public final class BcJcaHelper extends DefaultJcaJceHelper {

    private final ProviderJcaJceHelper bouncyCastle = new ProviderJcaJceHelper(bouncyCastle());

    /** The registered Bouncy Castle provider, or one of its own when none is registered. */
    private static Provider bouncyCastle() {
        Provider registered = Security.getProvider(BouncyCastleProvider.PROVIDER_NAME);
        return registered != null ? registered : new BouncyCastleProvider();
    }

    private static boolean mlKem(String algorithm) {
        String a = algorithm.toUpperCase(Locale.ROOT);
        return a.startsWith("ML-KEM") || a.startsWith("MLKEM");
    }

    @Override
    public KeyPairGenerator createKeyPairGenerator(String algorithm) throws NoSuchAlgorithmException {
        return mlKem(algorithm) ? bouncyCastle.createKeyPairGenerator(algorithm) : super.createKeyPairGenerator(algorithm);
    }

    @Override
    public KeyFactory createKeyFactory(String algorithm) throws NoSuchAlgorithmException {
        return mlKem(algorithm) ? bouncyCastle.createKeyFactory(algorithm) : super.createKeyFactory(algorithm);
    }

    @Override
    public KeyGenerator createKeyGenerator(String algorithm) throws NoSuchAlgorithmException {
        return mlKem(algorithm) ? bouncyCastle.createKeyGenerator(algorithm) : super.createKeyGenerator(algorithm);
    }
}
