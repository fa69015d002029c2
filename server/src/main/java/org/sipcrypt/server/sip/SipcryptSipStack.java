package org.sipcrypt.server.sip;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.ServerResponseInterface;
import java.util.Locale;
import java.util.Properties;
import javax.sip.PeerUnavailableException;

/**
 * The JAIN-SIP stack with one lookup made cheaper: a response whose branch carries the RFC 3261
 * magic cookie and matches no client transaction (a retransmitted 2xx, a late response) goes
 * straight to the application. JAIN-SIP would first compare it with every client transaction in
 * its table, a scan meant for RFC 2543 peers that can never match such a branch and that
 * costs more the busier the proxy is (RFC 3261 §17.1.3 matching is by branch alone).
 * Threading: as JAIN-SIP's stack: thread-safe.
 */
public final class SipcryptSipStack extends SipStackImpl {

    private static final String MAGIC_COOKIE = "z9hg4bk";

    public SipcryptSipStack(Properties properties) throws PeerUnavailableException {
        super(properties);
    }

    @Override
    public ServerResponseInterface newSIPServerResponse(SIPResponse response, MessageChannel channel) {
        String key = response.getTransactionId();
        if ((sipMessageValves == null || sipMessageValves.isEmpty()) && key != null && key.toLowerCase(Locale.ROOT).startsWith(MAGIC_COOKIE)
                && findTransaction(key, false) == null) {
            return sipMessageFactory.newSIPServerResponse(response, channel);
        }
        return super.newSIPServerResponse(response, channel);
    }
}
