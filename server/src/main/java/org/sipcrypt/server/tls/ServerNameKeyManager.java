package org.sipcrypt.server.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.StandardConstants;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The key manager of the jsse and openssl engines: picks the certificate of each accepted
 * connection from the current {@link ServerIdentities} by the server_name of its ClientHello
 * (RFC 6066 §3), and presents the default one to peers dialled that ask for a client certificate.
 * An alias names the content chosen ({@code CONTENTID:NAME}, {@link ServerIdentities.Identity#contentId}),
 * so that the chain and the key of one handshake are one identity's even when a reload replaces the
 * set in between, and a reload that leaves an identity's files unchanged leaves its alias unchanged:
 * the openssl engine keeps its native form of the key by alias ({@code OpenSslTlsStage}).
 * Threading: thread-safe; never blocks (called on event loops during handshakes).
 */
public final class ServerNameKeyManager extends X509ExtendedKeyManager {

    private final Supplier<ServerIdentities> current;
    private final Supplier<ServerIdentities> previous;

    /**
     * @param current  the set new handshakes choose from
     * @param previous the set it replaced, still used by handshakes under way; null when none
     */
    public ServerNameKeyManager(Supplier<ServerIdentities> current, Supplier<ServerIdentities> previous) {
        this.current = Objects.requireNonNull(current, "current");
        this.previous = Objects.requireNonNull(previous, "previous");
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        ServerIdentities ids = current.get();
        ServerIdentities.Identity id = ids.select(requestedName(engine));
        if (id == null || !serves(keyType, id.material().key())) {
            return null;
        }
        return alias(id);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return chooseEngineServerAlias(keyType, issuers, null);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        ServerIdentities ids = current.get();
        ServerIdentities.Identity id = ids.fallback();
        if (id == null) {
            return null;
        }
        for (String t : keyTypes) {
            if (serves(t, id.material().key())) {
                return alias(id);
            }
        }
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        return chooseEngineClientAlias(keyTypes, issuers, null);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        ServerIdentities ids = current.get();
        return ids.all().stream().filter(i -> serves(keyType, i.material().key()))
                .map(ServerNameKeyManager::alias).toArray(String[]::new);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        String alias = chooseEngineClientAlias(new String[] {keyType}, issuers, null);
        return alias == null ? null : new String[] {alias};
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        ServerIdentities.Identity id = identity(alias);
        return id == null ? null : id.material().chainArray();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        ServerIdentities.Identity id = identity(alias);
        return id == null ? null : id.material().key();
    }

    private static String alias(ServerIdentities.Identity id) {
        return id.contentId() + ":" + id.name();
    }

    /** The identity an alias names in the current set or the one it replaced; null for one in neither. */
    private ServerIdentities.Identity identity(String alias) {
        int colon = alias == null ? -1 : alias.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        String contentId = alias.substring(0, colon);
        String name = alias.substring(colon + 1);
        ServerIdentities.Identity id = named(current.get(), name, contentId);
        return id != null ? id : named(previous.get(), name, contentId);
    }

    private static ServerIdentities.Identity named(ServerIdentities ids, String name, String contentId) {
        ServerIdentities.Identity id = ids == null ? null : ids.named(name);
        return id != null && id.contentId().equals(contentId) ? id : null;
    }

    /**
     * Whether a key serves the engine's key type: SunJSSE asks for {@code RSA}, {@code RSASSA-PSS}
     * or {@code EC}; Netty's OpenSSL engine for {@code RSA}, {@code EC}, {@code EC_EC} or {@code EC_RSA}
     * (the last: an EC key under an RSA-signed certificate, not offered here).
     */
    static boolean serves(String keyType, PrivateKey key) {
        if (keyType == null) {
            return false;
        }
        String alg = key.getAlgorithm();
        return switch (keyType) {
            case "RSA", "RSASSA-PSS" -> alg.equals("RSA");
            case "EC", "EC_EC" -> alg.equals("EC") || alg.equals("ECDSA");
            default -> false;
        };
    }

    /** The host name of the ClientHello's server_name, or null when it had none. */
    static String requestedName(SSLEngine engine) {
        if (engine == null) {
            return null;
        }
        SSLSession s = engine.getHandshakeSession();
        if (!(s instanceof ExtendedSSLSession ext)) {
            return null;
        }
        List<SNIServerName> names = ext.getRequestedServerNames();
        if (names == null) {
            return null;
        }
        for (SNIServerName n : names) {
            if (n.getType() == StandardConstants.SNI_HOST_NAME) {
                return n instanceof SNIHostName h ? h.getAsciiName() : new SNIHostName(n.getEncoded()).getAsciiName();
            }
        }
        return null;
    }
}
