package org.sipcrypt.server.routing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A router that misbehaves on purpose, for the tests of how the server copes: for Request-URI user
 * {@code boom} it throws, for {@code failing} its stage fails, for {@code slow} its stage never completes
 * (the server's {@code routing.timeout} answers); for {@code whoami} it rejects with 403 and the
 * identity the request authenticated as in the reason phrase; every other request continues.
 * Threading: thread-safe (stateless).
 */
public final class FaultyRouter implements CallRouter {

    @Override
    public String name() {
        return "faulty";
    }

    @Override
    public CompletionStage<RouteDecision> route(RouteRequest request) {
        String user = request.requestUser().orElse("");
        switch (user) {
            case "boom":
                throw new IllegalStateException("this router throws for boom");
            case "failing":
                return CompletableFuture.failedFuture(new IllegalStateException("this router fails for failing"));
            case "slow":
                return new CompletableFuture<>();
            case "whoami":
                return CompletableFuture.completedFuture(RouteDecision.reject(403,
                        "Identity " + request.identity().orElse("none")));
            default:
                return CompletableFuture.completedFuture(RouteDecision.CONTINUE);
        }
    }
}
