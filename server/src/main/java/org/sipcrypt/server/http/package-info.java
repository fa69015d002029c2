/**
 * What operators read over HTTP: {@code /metrics} (Prometheus text from the server's Micrometer
 * registry) and {@code /health} (liveness and readiness as JSON), answered by {@link
 * org.sipcrypt.server.http.HttpEndpoints} for both the jar's own listener ({@code --http}, on Netty)
 * and the WAR's servlet. Nothing here touches SIP messages; the Netty classes here serve HTTP only.
 */
package org.sipcrypt.server.http;
