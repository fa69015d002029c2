package org.sipcrypt.server.transport.netty;

import gov.nist.javax.sip.stack.MessageProcessor;
import gov.nist.javax.sip.stack.MessageProcessorFactory;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import java.io.IOException;
import java.net.InetAddress;
import org.sipcrypt.server.transport.Transport;

/**
 * Plugs the Netty transport into JAIN-SIP: named by the stack property
 * {@code gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY}, the stack creates one instance, which the
 * server then attaches to its {@link NettyTransport} before creating listening points.
 * Threading: thread-safe (attach happens-before any processor creation).
 */
public final class NettyMessageProcessorFactory implements MessageProcessorFactory {

    private volatile NettyTransport transport;

    /** Called by JAIN-SIP through reflection. */
    public NettyMessageProcessorFactory() {
    }

    /** Gives the factory the event loops, settings and lanes its processors use. */
    public void attach(NettyTransport transport) {
        this.transport = transport;
    }

    @Override
    public MessageProcessor createMessageProcessor(SIPTransactionStack stack, InetAddress address, int port,
                                                   String transportName) throws IOException {
        NettyTransport t = transport;
        if (t == null) {
            throw new IOException("the Netty transport was not attached to the message processor factory");
        }
        Transport kind;
        try {
            kind = Transport.parse(transportName);
        } catch (IllegalArgumentException e) {
            throw new IOException("transport " + transportName + " is not provided by the Netty transport", e);
        }
        return switch (kind) {
            case UDP -> new NettyUdpMessageProcessor(address, port, stack, t);
            case TCP, TLS, WS, WSS -> new NettyTcpMessageProcessor(address, port, kind, stack, t);
        };
    }
}
