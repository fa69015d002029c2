package org.sipcrypt.lab.runner;

/**
 * What the lab measures and reports per scenario and cipher: points, ramps, and their reductions.
 * Threading: implementations are immutable.
 */
public interface ScenarioCipher {

    /** The scenario's name. */
    String scenario();

    /** The cipher compared, or {@code udp} / {@code tcp}. */
    String cipher();
}
