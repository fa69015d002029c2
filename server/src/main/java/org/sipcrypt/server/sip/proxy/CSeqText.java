package org.sipcrypt.server.sip.proxy;

/**
 * A CSeq value ({@code n METHOD}, RFC 3261 §20.16) read from its text by the relays from bytes
 * ({@link RequestRelay}, {@link ResponseRelay}): its sequence number for a given method, its method.
 * Threading: stateless.
 */
final class CSeqText {

    private CSeqText() {
    }

    /** The sequence number of a CSeq value {@code n METHOD}, or null when it is not in that form. */
    static String sequence(String cseq, String method) {
        int digits = 0;
        while (digits < cseq.length() && cseq.charAt(digits) >= '0' && cseq.charAt(digits) <= '9') {
            digits++;
        }
        if (digits == 0 || digits > 10 || digits == cseq.length()
                || cseq.charAt(digits) != ' ' && cseq.charAt(digits) != '\t'
                || Long.parseLong(cseq, 0, digits, 10) >= 1L << 31 || !cseq.substring(digits).trim().equals(method)) {
            return null;
        }
        return cseq.substring(0, digits);
    }

    /** The method of a CSeq value {@code n METHOD} (its last word), or null when there is none. */
    static String method(String cseq) {
        int blank = cseq == null ? -1 : cseq.lastIndexOf(' ');
        String method = blank < 0 ? null : cseq.substring(blank + 1).trim();
        return method == null || method.isEmpty() ? null : method;
    }
}
