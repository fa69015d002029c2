/**
 * The routing SPI: an operator's own call logic ({@link org.sipcrypt.server.routing.CallRouter}), found
 * with {@link java.util.ServiceLoader} on the class path or in the WAR's {@code WEB-INF/lib}, sees each new
 * out-of-dialog request the proxy routes and decides where it goes. Depends on the JDK only (no JAIN-SIP,
 * no Netty types), so a router compiles against this package alone.
 */
package org.sipcrypt.server.routing;
