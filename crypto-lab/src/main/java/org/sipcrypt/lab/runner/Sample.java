package org.sipcrypt.lab.runner;

import org.sipcrypt.lab.metrics.Interval;

/**
 * One interval of a run: what the generator counted and the server's CPU over the same interval.
 * Threading: immutable.
 *
 * @param generator        the generator's interval (merged over its processes)
 * @param serverCpuPercent the server's CPU in % of one core over the interval, -1 unknown
 */
public record Sample(Interval generator, double serverCpuPercent) {
}
