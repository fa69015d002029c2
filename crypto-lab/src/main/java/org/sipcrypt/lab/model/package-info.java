/**
 * The component cost model: fits per-component CPU costs (UDP base, TCP increment, TLS bulk cipher,
 * server and client handshakes, mutual authentication, session reuse, digest authentication) from
 * the CPU per call of named studies and predicts CPU per call and peak throughput of others.
 * Depends on the runner's result records only, never on reports, so reports can render its result.
 */
package org.sipcrypt.lab.model;
