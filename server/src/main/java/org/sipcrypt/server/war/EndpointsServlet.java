package org.sipcrypt.server.war;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.sipcrypt.server.http.HttpEndpoints;

/**
 * {@code /metrics}, {@code /health}, {@code /health/live} and, with {@code admin.token} set, the
 * management API under {@code /admin/}, under the WAR's context path, answered
 * by the server's {@link HttpEndpoints} as the jar's {@code --http} listener answers them.
 * Threading: called by the container's request threads; it waits there (up to 30 s) for
 * {@code /health}'s database check, which is allowed on a servlet thread.
 */
public final class EndpointsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    /** Most bytes of a request body read (the management API's JSON). */
    private static final int MAX_BODY_BYTES = 64 * 1024;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        HttpEndpoints endpoints = (HttpEndpoints) getServletContext().getAttribute(SipcryptContextListener.ENDPOINTS);
        if (endpoints == null) {
            write(response, new HttpEndpoints.Answer(503, "text/plain; charset=utf-8", "sipcrypt is not running\n",
                    null));
            return;
        }
        String path = request.getServletPath() + (request.getPathInfo() != null ? request.getPathInfo() : "");
        HttpEndpoints.Answer answer;
        try {
            String query = request.getQueryString();
            byte[] body = request.getInputStream().readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                write(response, new HttpEndpoints.Answer(413, "text/plain; charset=utf-8",
                        "body longer than " + MAX_BODY_BYTES + " bytes\n", null));
                return;
            }
            answer = endpoints.answer(request.getMethod(), query == null ? path : path + "?" + query,
                    request.getHeader("Authorization"), body, request.getRemoteAddr() + ":" + request.getRemotePort())
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while answering " + path, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("cannot answer " + path + ": " + e, e);
        }
        write(response, answer);
    }

    private static void write(HttpServletResponse response, HttpEndpoints.Answer answer) throws IOException {
        byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
        response.setStatus(answer.status());
        response.setContentType(answer.contentType());
        response.setContentLength(body.length);
        response.setHeader("Cache-Control", "no-store");
        if (answer.allow() != null) {
            response.setHeader("Allow", answer.allow());
        }
        if (answer.wwwAuthenticate() != null) {
            response.setHeader("WWW-Authenticate", answer.wwwAuthenticate());
        }
        response.getOutputStream().write(body);
    }
}
