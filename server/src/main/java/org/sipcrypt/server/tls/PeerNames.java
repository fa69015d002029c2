package org.sipcrypt.server.tls;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;

/**
 * Whether a peer's certificate names the SIP domain or address that was dialled, per RFC 5922 §7.1
 * and §7.2: an IP address matches an iPAddress entry; a domain matches a {@code sip:} URI entry or a
 * dNSName entry exactly (case-insensitive, no wildcards); the subject's common name counts only when
 * the certificate has no URI or dNSName entry.
 * Threading: stateless.
 */
public final class PeerNames {

    private static final int DNS = 2;
    private static final int URI = 6;
    private static final int IP = 7;

    private PeerNames() {
    }

    /** Whether {@code cert} names {@code target} (a host name or an IP literal). */
    public static boolean matches(X509Certificate cert, String target) {
        String host = target.startsWith("[") && target.endsWith("]") ? target.substring(1, target.length() - 1) : target;
        boolean literal = isIpLiteral(host);
        Collection<List<?>> sans;
        try {
            sans = cert.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return false;
        }
        boolean domainEntries = false;
        if (sans != null) {
            for (List<?> san : sans) {
                int type = (Integer) san.get(0);
                String value = String.valueOf(san.get(1));
                if (literal && type == IP && sameAddress(value, host)) {
                    return true;
                }
                if (type == DNS || type == URI) {
                    domainEntries = true;
                    if (!literal && (type == DNS ? value.equalsIgnoreCase(host) : isSipUriFor(value, host))) {
                        return true;
                    }
                }
            }
        }
        return !literal && !domainEntries && host.equalsIgnoreCase(commonName(cert.getSubjectX500Principal()));
    }

    private static boolean isSipUriFor(String uri, String host) {
        String u = uri.toLowerCase(Locale.ROOT);
        return u.startsWith("sip:") && u.substring(4).equals(host.toLowerCase(Locale.ROOT));
    }

    private static boolean isIpLiteral(String host) {
        return host.matches("[0-9.]+") || host.contains(":");
    }

    private static boolean sameAddress(String a, String b) {
        try {
            return InetAddress.getByName(a).equals(InetAddress.getByName(b));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String commonName(X500Principal subject) {
        RDN[] cns = X500Name.getInstance(subject.getEncoded()).getRDNs(BCStyle.CN);
        return cns.length == 0 ? null : IETFUtils.valueToString(cns[0].getFirst().getValue());
    }
}
