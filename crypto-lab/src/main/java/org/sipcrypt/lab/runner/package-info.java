/**
 * Runs scenarios: starts the server under test in its own JVM, the UAS side and the UAC
 * generators, sweeps ciphers and repetitions at a fixed rate or by ramps, and returns the measured
 * points. It depends on the load generator and metrics, never on storage or reports.
 */
package org.sipcrypt.lab.runner;
