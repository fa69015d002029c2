/**
 * The server's settings as immutable records, each with a builder holding its defaults and a
 * constructor checking its own values ({@link org.sipcrypt.server.config.ServerConfigChecks} checks
 * what ties them together, once); the table of keys, {@link org.sipcrypt.server.config.Setting}; and
 * {@link org.sipcrypt.server.config.ConfigLoader}, which builds a configuration from an optional
 * {@code .properties} or YAML file and the command line. Nothing here depends on Netty, JAIN-SIP or
 * the database, nor on the packages that use the settings: it only parses and validates values.
 */
package org.sipcrypt.server.config;
