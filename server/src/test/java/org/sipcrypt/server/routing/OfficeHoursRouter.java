package org.sipcrypt.server.routing;

import java.time.Clock;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An example router, shipped as a test: a time-of-day rule. Calls to the user of option
 * {@code office.user} outside the hours of {@code office.open} ({@code 09:00-17:00}, in the zone of
 * {@code office.zone}, default UTC) are redirected to {@code office.voicemail}, or without one rejected
 * with 480; within the hours, and for every other request, it continues. The time is the server's clock
 * ({@link RouterContext#clock()}), which tests set by hand.
 * Threading: thread-safe (immutable once started).
 */
public final class OfficeHoursRouter implements CallRouter {

    private String user;
    private LocalTime opens;
    private LocalTime closes;
    private ZoneId zone;
    private Optional<String> voicemail;
    private Clock clock;

    @Override
    public String name() {
        return "office-hours";
    }

    @Override
    public void start(RouterContext context) {
        user = context.requiredOption("office.user");
        String[] open = context.requiredOption("office.open").split("-", 2);
        if (open.length != 2) {
            throw new IllegalArgumentException("office.open: expected HH:MM-HH:MM, e.g. 09:00-17:00");
        }
        opens = LocalTime.parse(open[0]);
        closes = LocalTime.parse(open[1]);
        zone = ZoneId.of(context.option("office.zone").orElse("UTC"));
        voicemail = context.option("office.voicemail");
        clock = context.clock();
    }

    @Override
    public CompletionStage<RouteDecision> route(RouteRequest request) {
        if (!RouteRequest.userOf(request.to()).map(user::equals).orElse(false)) {
            return CompletableFuture.completedFuture(RouteDecision.CONTINUE);
        }
        LocalTime now = LocalTime.now(clock.withZone(zone));
        boolean open = !now.isBefore(opens) && now.isBefore(closes);
        return CompletableFuture.completedFuture(open ? RouteDecision.CONTINUE
                : voicemail.map(RouteDecision::redirect).orElseGet(
                        () -> RouteDecision.reject(480, "Office Closed")));
    }
}
