/**
 * The server's settings as immutable records, and {@link org.sipcrypt.server.config.ConfigLoader},
 * which builds them from an optional {@code .properties} or YAML file and the command line, with one
 * table of keys. Nothing here depends on Netty, JAIN-SIP or the database: it only parses and
 * validates values.
 */
package org.sipcrypt.server.config;
