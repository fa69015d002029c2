/**
 * The server as a web application in a Jakarta Servlet 6 container (the WAR,
 * {@code server/target/sipcrypt-server.war}): a {@code ServletContextListener} starts the SIP server
 * on deploy and drains and stops it on undeploy, with its settings from the same keys as the jar's;
 * a servlet serves {@code /metrics} and {@code /health} under the context path. SIP itself never
 * passes through the container: the server keeps its own sockets.
 */
package org.sipcrypt.server.war;
