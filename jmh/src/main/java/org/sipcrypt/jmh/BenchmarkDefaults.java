package org.sipcrypt.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run settings every sipcrypt benchmark shares, inherited by JMH from this base: the average time
 * of one operation in nanoseconds (a class may state a coarser {@code @OutputTimeUnit}), one fork,
 * three warm-up and three measurement iterations of one second. {@link BenchmarkMain}'s
 * {@code --long} and JMH's own options override them for a run.
 * Threading: stateless.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public abstract class BenchmarkDefaults {
}
