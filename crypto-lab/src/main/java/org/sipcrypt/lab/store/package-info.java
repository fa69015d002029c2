/**
 * The lab's own database of studies ({@link org.sipcrypt.lab.store.ResultStore}: H2 by default, any
 * JDBC database such as PostgreSQL) and the one JSON configuration every stored or exported study is
 * written with ({@link org.sipcrypt.lab.store.LabJson}). It depends on the runner's result records,
 * JDBC, HikariCP and Jackson; never on the load generator, the runner's processes or reports.
 */
package org.sipcrypt.lab.store;
