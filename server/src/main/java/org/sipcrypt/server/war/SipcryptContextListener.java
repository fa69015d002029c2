package org.sipcrypt.server.war;

import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.http.HttpEndpoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the server's life in a servlet container: deploying the WAR starts it with the settings of
 * {@link WebappSettings}; undeploying it, or stopping the container, drains and stops it as SIGTERM
 * does for the jar (new calls refused with 503, open transactions given {@code shutdown.grace}), then
 * releases what the JVM would otherwise keep for this web application: the JDBC drivers it
 * registered, Netty's per-thread state on the container's thread, and its logging. Bad settings fail the deployment with the message naming the key.
 * Threading: the container calls it from its deployment thread, one event at a time.
 */
public final class SipcryptContextListener implements ServletContextListener {

    /** The context attribute holding the {@link HttpEndpoints} the servlet answers from. */
    public static final String ENDPOINTS = HttpEndpoints.class.getName();

    private static final Logger log = LoggerFactory.getLogger(SipcryptContextListener.class);

    private SipcryptServer server;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        WebappSettings.Source file = WebappSettings.configFile(context::getInitParameter, System::getProperty,
                System::getenv);
        List<String> names = Collections.list(context.getInitParameterNames());
        Map<String, List<String>> settings = WebappSettings.settings(names, context::getInitParameter);
        log.info("sipcrypt web application {}: configuration file {}, settings from context parameters {}",
                context.getContextPath(), file == null ? "none" : file.file() + " (" + file.namedBy() + ")",
                settings.keySet());
        ServerConfig config;
        try {
            config = WebappSettings.load(file, settings);
        } catch (ConfigException e) {
            log.error("sipcrypt: {}", e.getMessage());
            throw new IllegalStateException("sipcrypt: " + e.getMessage(), e);
        }
        try {
            server = SipcryptServer.start(config, java.time.Clock.systemUTC(),
                    new org.sipcrypt.server.config.ConfigSource(file == null ? null : file.file(), settings));
        } catch (Exception e) {
            log.error("sipcrypt: cannot start", e);
            throw new IllegalStateException("sipcrypt: cannot start: "
                    + (e.getMessage() != null ? e.getMessage() : e.toString()), e);
        }
        context.setAttribute(ENDPOINTS, server.endpoints());
        // Netty keeps per-thread state for threads that waited on its futures, as this one did
        io.netty.util.concurrent.FastThreadLocal.removeAll();
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        event.getServletContext().removeAttribute(ENDPOINTS);
        try {
            if (server != null) {
                server.close();
                server = null;
            }
        } catch (RuntimeException e) {
            log.error("graceful shutdown failed", e);
        } finally {
            deregisterDrivers();
            io.netty.util.concurrent.FastThreadLocal.removeAll();
            stopLogging();
        }
    }

    /** JDBC drivers register themselves with the JVM-wide DriverManager; those of this application leave. */
    private static void deregisterDrivers() {
        ClassLoader ours = SipcryptContextListener.class.getClassLoader();
        for (Driver d : Collections.list(DriverManager.getDrivers())) {
            if (d.getClass().getClassLoader() == ours) {
                try {
                    DriverManager.deregisterDriver(d);
                } catch (SQLException e) {
                    log.warn("cannot deregister JDBC driver {}: {}", d.getClass().getName(), e.toString());
                }
            }
        }
    }

    /**
     * Logback's own servlet listener is turned off in web.xml, as the container would call it
     * before this one and lose the shutdown's log lines; logging stops here, last.
     */
    private static void stopLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext logback) {
            logback.stop();
        }
    }
}
