package org.sipcrypt.lab.runner;

/**
 * The server's TLS handshakes over the measured part of a point, by the side of the handshake it
 * took and their kind: as TLS server (the generator's connections to it, the left leg) or as TLS
 * client (its own connections to the UAS, the right leg), full or resumed. They are counted at the
 * lab's end of each handshake (the generator's and the UAS's TLS stages: {@link PointRun#uac()}'s
 * handshakes and {@link PointRun#uasHandshakes()}), which the server is the other end of, so they
 * hold for any server under test; the sipcrypt server counts the same split itself as
 * {@code tls.handshakes{kind,role}}.
 * Threading: immutable.
 *
 * @param asServerFull    full handshakes the server made as TLS server
 * @param asServerResumed resumed handshakes it made as TLS server
 * @param asClientFull    full handshakes it made as TLS client
 * @param asClientResumed resumed handshakes it made as TLS client
 */
public record ServerHandshakes(long asServerFull, long asServerResumed, long asClientFull, long asClientResumed) {

    /** From this share of all handshakes on, in %, one kind names them ({@link #kind()}). */
    public static final int DOMINANT_PCT = 90;

    /** What {@link #kind()} says when no kind reaches {@link #DOMINANT_PCT} %. */
    public static final String MIXED = "mixed";

    public ServerHandshakes {
        if (asServerFull < 0 || asServerResumed < 0 || asClientFull < 0 || asClientResumed < 0) {
            throw new IllegalArgumentException("handshake counts must not be negative: " + asServerFull + ", "
                    + asServerResumed + ", " + asClientFull + ", " + asClientResumed);
        }
    }

    /** The point's handshakes from the generator's count (left leg) and the UAS's (right leg). */
    static ServerHandshakes of(PointRun p) {
        long left = p.uac().handshakes();
        long leftResumed = Math.min(p.uac().resumed(), left);
        long rightResumed = Math.min(p.uasResumed(), p.uasHandshakes());
        return new ServerHandshakes(left - leftResumed, leftResumed, p.uasHandshakes() - rightResumed, rightResumed);
    }

    /** All four together. */
    public long total() {
        return asServerFull + asServerResumed + asClientFull + asClientResumed;
    }

    /** The sum of both, kind by kind (several points of one cipher taken together). */
    public ServerHandshakes plus(ServerHandshakes o) {
        return new ServerHandshakes(asServerFull + o.asServerFull, asServerResumed + o.asServerResumed,
                asClientFull + o.asClientFull, asClientResumed + o.asClientResumed);
    }

    /**
     * The kind that is at least {@link #DOMINANT_PCT} % of all: {@code as server, full},
     * {@code as server, resumed}, {@code as client, full} or {@code as client, resumed};
     * {@value #MIXED} when none is; null without handshakes.
     */
    public String kind() {
        long all = total();
        if (all == 0) {
            return null;
        }
        long[] counts = {asServerFull, asServerResumed, asClientFull, asClientResumed};
        String[] names = {"as server, full", "as server, resumed", "as client, full", "as client, resumed"};
        for (int i = 0; i < counts.length; i++) {
            // in whole counts, so that exactly 90 % is not lost to a rounding of the share
            if (counts[i] * 100 >= all * DOMINANT_PCT) {
                return names[i];
            }
        }
        return MIXED;
    }

    /** Each count per completed call; -1 each when no call completed. */
    public PerCall perCall(long calls) {
        if (calls <= 0) {
            return new PerCall(-1, -1, -1, -1);
        }
        double c = calls;
        return new PerCall(asServerFull / c, asServerResumed / c, asClientFull / c, asClientResumed / c);
    }

    /**
     * The four counts of {@link ServerHandshakes} per completed call, -1 unknown.
     * Threading: immutable.
     */
    public record PerCall(double asServerFull, double asServerResumed, double asClientFull, double asClientResumed) {
    }
}
