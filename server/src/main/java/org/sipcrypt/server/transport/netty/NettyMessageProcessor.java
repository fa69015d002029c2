package org.sipcrypt.server.transport.netty;

import gov.nist.javax.sip.stack.MessageProcessor;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.sipcrypt.server.transport.OverloadGuard;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.Transport;

/**
 * Common part of the Netty message processors: one per JAIN-SIP listening point, owning the
 * listening socket and handing received messages to the SIP worker lanes.
 * Threading: thread-safe; event-loop methods never block.
 */
abstract class NettyMessageProcessor extends MessageProcessor {

    private final NettyTransport transport;
    private final Transport kind;

    NettyMessageProcessor(InetAddress address, int port, Transport kind, SIPTransactionStack stack,
                          NettyTransport transport) {
        super(address, port, kind.sipName(), stack);
        this.transport = transport;
        this.kind = kind;
    }

    NettyTransport transport() {
        return transport;
    }

    Transport kind() {
        return kind;
    }

    /** Whether the listening socket is bound and open (for readiness). */
    abstract boolean listening();

    InetSocketAddress localAddress() {
        return new InetSocketAddress(getIpAddress(), getPort());
    }

    /**
     * Hands one framed message to the lane of its Call-ID, unless the {@link OverloadGuard} refuses
     * it (then it is answered 503 from here, or 403 for a banned source, or dropped). Its bytes count against {@code overload.maxQueuedBytes}
     * while it waits; a message the lanes refuse (that budget, or a full queue) is answered 503 when it
     * is a request, else dropped and counted. Runs on the event loop; only scans header lines.
     */
    void dispatch(NettyMessageChannel channel, byte[] bytes) {
        // the one index of the message: every reader from here to the stack asks it
        SipHead head = SipHead.of(bytes);
        String callId = head.callId();
        String key = callId != null ? callId : channel.source().toString();
        OverloadGuard guard = transport.guard();
        if (guard != null && !guard.admit(head, channel.source().getAddress(), key, channel::answer)) {
            return;
        }
        if (!transport.workers().execute(key, bytes.length, () -> channel.receive(head))
                && (guard == null || !guard.refuse(head, channel::answer))) {
            channel.countDropped("overload");
        }
    }

    @Override
    public SIPTransactionStack getSIPStack() {
        return sipStack;
    }

    @Override
    public int getDefaultTargetPort() {
        return kind.defaultPort();
    }

    @Override
    public boolean isSecure() {
        return kind.secure();
    }

    @Override
    public int getMaximumMessageSize() {
        return transport.settings().maxMessageBytes();
    }

    @Override
    public String toString() {
        return kind.configName() + ":" + getIpAddress().getHostAddress() + ":" + getPort();
    }
}
