package org.sipcrypt.server.routing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An example router, shipped as a test: calls to a Request-URI user starting with {@code set-} go to the
 * destination set named by the rest ({@code sip:set-gw@anywhere} to set {@code gw}); every other request
 * continues.
 * Threading: immutable.
 */
public final class SetRouter implements CallRouter {

    @Override
    public String name() {
        return "to-set";
    }

    @Override
    public CompletionStage<RouteDecision> route(RouteRequest request) {
        String user = request.requestUser().orElse("");
        return CompletableFuture.completedFuture(user.startsWith("set-")
                ? RouteDecision.proxyToSet(user.substring(4)) : RouteDecision.CONTINUE);
    }
}
