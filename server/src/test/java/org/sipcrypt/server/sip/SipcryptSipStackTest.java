package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.config.TransportImpl;

/**
 * On the Netty transport the stack's stop ends JAIN-SIP's fixed sleep after the timer stops with the
 * interruption the wheel leaves for it, and leaves the stopping thread not interrupted: should
 * JAIN-SIP stop sleeping there, the interruption would outlive the stop and this fails. JAIN-SIP's
 * own transports keep the sleep.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SipcryptSipStackTest {

    @Test
    void stopOnTheNettyTransportEndsJainSipsSleepAndLeavesTheThreadNotInterrupted() throws Exception {
        SipcryptSipStack stack = SipStackBuilder.build(ServerConfig.defaults());
        stack.start();
        assertTrue(stack.getTimer() instanceof WheelSipTimer, "the wheel runs the stack's timers");
        stack.stop();
        assertTrue(stack.stopSleepEnded(), "JAIN-SIP's sleep took the wheel's interruption");
        assertFalse(Thread.currentThread().isInterrupted(), "no interruption left on the stopping thread");
    }

    @Test
    void stopOnJainSipsOwnTransportKeepsItsSleep() throws Exception {
        SipcryptSipStack stack = SipStackBuilder.build(ServerConfig.defaults().toBuilder()
                .transportImpl(TransportImpl.JAIN_NIO).build());
        stack.start();
        stack.stop();
        assertFalse(stack.stopSleepEnded(), "its socket threads get JAIN-SIP's sleep");
        assertFalse(Thread.currentThread().isInterrupted(), "no interruption left on the stopping thread");
    }
}
