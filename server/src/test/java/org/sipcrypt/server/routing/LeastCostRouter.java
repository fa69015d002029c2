package org.sipcrypt.server.routing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import javax.sql.DataSource;

/**
 * An example router, shipped as a test: least-cost routing over a database table. A call to a
 * telephone number (digits, with an optional leading {@code +} or the international prefix of option
 * {@code lcr.strip}, e.g. {@code 00}, which come off) goes to the gateway of table {@code lcr_route}
 * whose prefix is the longest that matches, the cheapest of those; the Request-URI's user becomes the
 * number without its international prefix. Numbers no prefix matches, and every other request,
 * continue. The table is made at start when missing: {@code lcr_route(prefix, gateway, cost)}, a
 * gateway being {@code host:port;transport=udp}.
 * Threading: thread-safe; route runs on the server's router threads and queries the database there.
 */
public final class LeastCostRouter implements CallRouter {

    /** The context the last started instance got: lets the test fill the table through the server's pool. */
    static volatile RouterContext started;

    private DataSource db;
    private String strip;

    @Override
    public String name() {
        return "lcr";
    }

    @Override
    public void start(RouterContext context) throws SQLException {
        db = context.dataSource();
        strip = context.option("lcr.strip").orElse("");
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS lcr_route (prefix VARCHAR(32) NOT NULL,"
                    + " gateway VARCHAR(255) NOT NULL, cost INT NOT NULL)");
        }
        started = context;
    }

    @Override
    public CompletionStage<RouteDecision> route(RouteRequest request) {
        String user = request.requestUser().orElse("");
        String number = user.startsWith("+") ? user.substring(1)
                : !strip.isEmpty() && user.startsWith(strip) ? user.substring(strip.length()) : user;
        if (number.isEmpty() || !number.chars().allMatch(Character::isDigit)) {
            return CompletableFuture.completedFuture(RouteDecision.CONTINUE);
        }
        // blocking JDBC is fine here: route runs on a sipcrypt-router thread, never on a SIP lane
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement(
                "SELECT gateway FROM lcr_route WHERE ? LIKE prefix || '%'"
                        + " ORDER BY LENGTH(prefix) DESC, cost ASC FETCH FIRST 1 ROW ONLY")) {
            q.setString(1, number);
            try (ResultSet rs = q.executeQuery()) {
                return CompletableFuture.completedFuture(rs.next()
                        ? RouteDecision.proxy("sip:" + number + "@" + rs.getString(1))
                        : RouteDecision.CONTINUE);
            }
        } catch (SQLException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
