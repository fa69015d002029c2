package org.sipcrypt.lab.store;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.runner.Environment;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Sample;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.server.location.JdbcSecrets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lab's database of studies, through a small HikariCP pool ({@code lab-db-pool}): H2 in
 * {@code lab-data/} under the working directory by default, or any JDBC database the lab has a
 * driver for (H2, PostgreSQL). The schema is created or migrated when the store opens. A study is
 * saved in one transaction as a {@code study} row, a {@code point} row per fixed point and ramp step,
 * a {@code ramp} row per ramp and a {@code sample} row per interval; the numbers people query are
 * columns, and the JSON columns ({@link LabJson}) hold the records whole, so a study loads back
 * exactly as it was saved (on PostgreSQL {@code started} keeps microseconds). Points and ramps keep
 * their order through their identity columns.
 * Threading: thread-safe; every method but {@link #url()} blocks on the database.
 */
public final class ResultStore implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ResultStore.class);

    /** The default database: an H2 file {@code lab-data/lab.mv.db} under the working directory. */
    public static final String DEFAULT_URL = "jdbc:h2:file:./lab-data/lab";

    /** The default user, H2's. */
    public static final String DEFAULT_USER = "sa";

    /** The Hikari pool name; its housekeeping thread carries it too. */
    public static final String POOL_NAME = "lab-db-pool";

    private static final int POOL_SIZE = 2;
    private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

    private static final String INSERT_STUDY = "INSERT INTO study (started, scenario, ciphers, scenario_text,"
            + " environment, jvm, cpu_model, cores, peak_fraction) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String INSERT_RAMP = "INSERT INTO ramp (study_id, scenario, cipher, repetition, peak_rate,"
            + " sustainable_rate, stopped_by) VALUES (?, ?, ?, ?, ?, ?, ?)";
    private static final String INSERT_POINT = "INSERT INTO point (study_id, kind, ramp_id, scenario, cipher, mode,"
            + " repetition, rate, completed_cps, failed_pct, crt_p50_ms, crt_p90_ms, crt_p99_ms, crt_max_ms, kbps,"
            + " server_cpu_pct, server_cpu_us_per_call, heap_after_gc_bytes, generator_cpu_pct, handshakes_per_s,"
            + " resumption_pct, valid, invalid_reason, summary_json, generator_cpu_us_per_call, uas_cpu_us_per_call)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String INSERT_SAMPLE = "INSERT INTO sample (point_id, seq, \"second\", warmup, offered,"
            + " started, completed, failed, bytes_sent, bytes_received, crt_p50_ms, crt_p99_ms, handshakes, resumed,"
            + " retransmissions, generator_cpu_pct, server_cpu_pct, interval_json)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String INSERT_IDLE = "INSERT INTO idle_heap (study_id, cipher, connections,"
            + " bytes_per_connection, valid, summary_json) VALUES (?, ?, ?, ?, ?, ?)";
    private static final String SELECT_LIST = "SELECT s.id, s.started, s.scenario, s.ciphers, s.cores, s.cpu_model,"
            + " (SELECT COUNT(*) FROM point p WHERE p.study_id = s.id),"
            + " (SELECT COUNT(*) FROM ramp r WHERE r.study_id = s.id)"
            + " FROM study s ORDER BY s.started DESC, s.id DESC";

    /** The name of the list of samples in a point's JSON; they are rows of {@code sample} instead. */
    private static final String SAMPLES = "samples";

    private final HikariDataSource dataSource;
    private final String maskedUrl;

    private ResultStore(HikariDataSource dataSource, String maskedUrl) {
        this.dataSource = dataSource;
        this.maskedUrl = maskedUrl;
    }

    /**
     * Opens the database, creating it (H2) and its schema when new.
     *
     * @param jdbcUrl  e.g. {@link #DEFAULT_URL} or {@code jdbc:postgresql://HOST/lab}
     * @param user     database user
     * @param password database password, or null for none; never logged or put in a message
     * @throws IOException when the database cannot be reached or migrated; the message names the URL
     *                     (any password parameter in it masked)
     */
    public static ResultStore open(String jdbcUrl, String user, String password) throws IOException {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        String masked = JdbcSecrets.maskUrl(jdbcUrl);
        HikariConfig config = new HikariConfig();
        config.setPoolName(POOL_NAME);
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
        // fail at once rather than retry when the database cannot be reached at start
        config.setInitializationFailTimeout(1);
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(config);
        } catch (RuntimeException e) {
            // Hikari reports an unreachable database, bad credentials and a URL no driver takes unchecked
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IOException("cannot open lab database " + masked + ": " + JdbcSecrets.describe(cause, password), e);
        }
        try (Connection c = ds.getConnection()) {
            LabSchema.migrate(c, masked);
        } catch (SQLException | RuntimeException e) {
            ds.close();
            throw new IOException("cannot open lab database " + masked + ": " + JdbcSecrets.describe(e, password), e);
        }
        log.debug("lab database {} open (schema version {})", masked, LabSchema.latestVersion());
        return new ResultStore(ds, masked);
    }

    /** The JDBC URL, any password parameter masked. */
    public String url() {
        return maskedUrl;
    }

    /**
     * Stores a study in one transaction; its own ID is ignored.
     *
     * @return the ID the database gave it
     * @throws IllegalArgumentException when a cipher name contains a comma (ciphers are stored
     *                                  comma-joined)
     * @throws IOException              when the database fails; nothing of the study is stored then
     */
    public long save(Study study) throws IOException {
        Objects.requireNonNull(study, "study");
        for (String cipher : study.ciphers()) {
            if (cipher.contains(",")) {
                throw new IllegalArgumentException("study.ciphers: \"" + cipher + "\" contains a comma");
            }
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                long studyId = insertStudy(c, study);
                try (PreparedStatement ramp = c.prepareStatement(INSERT_RAMP, new String[] {"id"});
                     PreparedStatement point = c.prepareStatement(INSERT_POINT, new String[] {"id"});
                     PreparedStatement sample = c.prepareStatement(INSERT_SAMPLE)) {
                    for (PointRun p : study.fixed()) {
                        insertPoint(point, sample, studyId, null, p);
                    }
                    for (PeakSearch r : study.peaks()) {
                        long rampId = insertRamp(ramp, studyId, r);
                        for (PointRun step : r.steps()) {
                            insertPoint(point, sample, studyId, rampId, step);
                        }
                    }
                }
                insertIdle(c, studyId, study.idle());
                c.commit();
                log.debug("{}: saved study {} ({})", maskedUrl, studyId, study.scenario());
                return studyId;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException rollbackFailure) {
                    e.addSuppressed(rollbackFailure);
                }
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new IOException("cannot save study of " + study.scenario() + " to " + maskedUrl + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * A stored study, whole: points, ramps and samples.
     *
     * @throws IOException when the database fails or holds JSON this lab cannot read
     */
    public Optional<Study> load(long id) throws IOException {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT started, scenario, ciphers, scenario_text,"
                    + " environment, peak_fraction FROM study WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    Instant started = rs.getObject(1, OffsetDateTime.class).toInstant();
                    String scenario = rs.getString(2);
                    List<String> ciphers = splitCiphers(rs.getString(3));
                    String scenarioText = rs.getString(4);
                    String environment = rs.getString(5);
                    double peakFraction = rs.getDouble(6);
                    Environment env = environment == null ? null : LabJson.read(environment, Environment.class);
                    Map<Long, List<Sample>> samples = loadSamples(c, id);
                    List<PointRun> fixed = new ArrayList<>();
                    Map<Long, List<PointRun>> steps = new HashMap<>();
                    loadPoints(c, id, samples, fixed, steps);
                    List<PeakSearch> peaks = loadRamps(c, id, steps);
                    return Optional.of(new Study(id, scenario, scenarioText, ciphers, started, env, fixed, peaks,
                            peakFraction, loadIdle(c, id)));
                }
            }
        } catch (SQLException e) {
            throw new IOException("cannot load study " + id + " from " + maskedUrl + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IOException("cannot read study " + id + " from " + maskedUrl + ": " + e.getMessage(), e);
        }
    }

    /** The stored studies, newest first. */
    public List<StudyHeader> list() throws IOException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(SELECT_LIST);
             ResultSet rs = ps.executeQuery()) {
            List<StudyHeader> out = new ArrayList<>();
            while (rs.next()) {
                int cores = rs.getInt(5);
                boolean noCores = rs.wasNull();
                String cpu = rs.getString(6);
                out.add(new StudyHeader(rs.getLong(1), rs.getObject(2, OffsetDateTime.class).toInstant(),
                        rs.getString(3), splitCiphers(rs.getString(4)), rs.getInt(7), rs.getInt(8),
                        noCores ? -1 : cores, cpu == null ? "unknown" : cpu));
            }
            return out;
        } catch (SQLException e) {
            throw new IOException("cannot list studies in " + maskedUrl + ": " + e.getMessage(), e);
        }
    }

    /**
     * Removes a study with its points, ramps and samples.
     *
     * @return whether there was such a study
     */
    public boolean delete(long id) throws IOException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("DELETE FROM study WHERE id = ?")) {
            ps.setLong(1, id);
            return ps.executeUpdate() > 0;
        } catch (SQLException e) {
            throw new IOException("cannot delete study " + id + " from " + maskedUrl + ": " + e.getMessage(), e);
        }
    }

    /** Closes the pool (and so an embedded H2 database). Idempotent. */
    @Override
    public void close() {
        if (!dataSource.isClosed()) {
            dataSource.close();
            log.debug("lab database {} closed", maskedUrl);
        }
    }

    @Override
    public String toString() {
        return "ResultStore[" + maskedUrl + "]";
    }

    private static long insertStudy(Connection c, Study s) throws SQLException {
        Environment env = s.environment();
        try (PreparedStatement ps = c.prepareStatement(INSERT_STUDY, new String[] {"id"})) {
            ps.setObject(1, OffsetDateTime.ofInstant(s.started(), ZoneOffset.UTC));
            ps.setString(2, s.scenario());
            ps.setString(3, String.join(",", s.ciphers()));
            ps.setString(4, s.scenarioText());
            ps.setString(5, env == null ? null : LabJson.write(env));
            ps.setString(6, env == null ? null : env.jvm());
            ps.setString(7, env == null ? null : env.cpuModel());
            if (env == null) {
                ps.setNull(8, Types.INTEGER);
            } else {
                ps.setInt(8, env.cores());
            }
            ps.setDouble(9, s.peakFraction());
            ps.executeUpdate();
            return generatedId(ps);
        }
    }

    private static void insertIdle(Connection c, long studyId, List<IdleHeap> idle) throws SQLException {
        if (idle.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_IDLE)) {
            for (IdleHeap h : idle) {
                ps.setLong(1, studyId);
                ps.setString(2, h.cipher());
                ps.setLong(3, h.connections());
                ps.setDouble(4, h.bytesPerConnection());
                ps.setBoolean(5, h.valid());
                ps.setString(6, LabJson.write(h));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** A study's heaps per idle connection, by cipher name. */
    private static List<IdleHeap> loadIdle(Connection c, long studyId) throws SQLException, IOException {
        List<IdleHeap> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT summary_json FROM idle_heap WHERE study_id = ?"
                + " ORDER BY cipher")) {
            ps.setLong(1, studyId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(LabJson.read(rs.getString(1), IdleHeap.class));
                }
            }
        }
        return out;
    }

    private static long insertRamp(PreparedStatement ps, long studyId, PeakSearch r) throws SQLException {
        ps.setLong(1, studyId);
        ps.setString(2, r.scenario());
        ps.setString(3, r.cipher());
        ps.setInt(4, r.repetition());
        ps.setDouble(5, r.peakRate());
        ps.setDouble(6, r.sustainableRate());
        ps.setString(7, r.stoppedBy());
        ps.executeUpdate();
        return generatedId(ps);
    }

    private static void insertPoint(PreparedStatement ps, PreparedStatement samples, long studyId, Long rampId,
                                    PointRun p) throws SQLException {
        RunSummary uac = p.uac();
        ObjectNode json = LabJson.objectTree(p);
        json.remove(SAMPLES);
        int i = 0;
        ps.setLong(++i, studyId);
        ps.setString(++i, rampId == null ? "fixed" : "step");
        if (rampId == null) {
            ps.setNull(++i, Types.BIGINT);
        } else {
            ps.setLong(++i, rampId);
        }
        ps.setString(++i, p.scenario());
        ps.setString(++i, p.cipher());
        ps.setString(++i, p.mode());
        ps.setInt(++i, p.repetition());
        ps.setDouble(++i, p.rate());
        ps.setDouble(++i, p.completedPerSecond());
        ps.setDouble(++i, uac.failedPct());
        ps.setDouble(++i, uac.crtP50Ms());
        ps.setDouble(++i, uac.crtP90Ms());
        ps.setDouble(++i, uac.crtP99Ms());
        ps.setDouble(++i, uac.crtMaxMs());
        ps.setDouble(++i, p.kbps());
        ps.setDouble(++i, p.server().cpuPercent());
        ps.setDouble(++i, p.server().cpuMicrosPerCall());
        ps.setLong(++i, p.server().heapAfterGcBytes());
        ps.setDouble(++i, uac.cpuPercent());
        ps.setDouble(++i, p.handshakesPerSecond());
        ps.setDouble(++i, p.resumptionPct());
        ps.setBoolean(++i, p.invalid() == null);
        ps.setString(++i, p.invalid());
        ps.setString(++i, LabJson.write(json));
        ps.setDouble(++i, p.labCpu().generatorMicrosPerCall());
        ps.setDouble(++i, p.labCpu().uasMicrosPerCall());
        ps.executeUpdate();
        long pointId = generatedId(ps);
        int seq = 0;
        for (Sample s : p.samples()) {
            Interval g = s.generator();
            int j = 0;
            samples.setLong(++j, pointId);
            samples.setInt(++j, seq++);
            samples.setDouble(++j, g.second());
            samples.setBoolean(++j, g.warmup());
            samples.setLong(++j, g.offered());
            samples.setLong(++j, g.started());
            samples.setLong(++j, g.completed());
            samples.setLong(++j, g.failed());
            samples.setLong(++j, g.bytesSent());
            samples.setLong(++j, g.bytesReceived());
            samples.setDouble(++j, g.crtP50Ms());
            samples.setDouble(++j, g.crtP99Ms());
            samples.setLong(++j, g.handshakes());
            samples.setLong(++j, g.resumed());
            samples.setLong(++j, g.retransmissions());
            samples.setDouble(++j, g.cpuPercent());
            samples.setDouble(++j, s.serverCpuPercent());
            samples.setString(++j, LabJson.write(g));
            samples.addBatch();
        }
        if (seq > 0) {
            samples.executeBatch();
        }
    }

    private static long generatedId(PreparedStatement ps) throws SQLException {
        try (ResultSet keys = ps.getGeneratedKeys()) {
            if (!keys.next()) {
                throw new SQLException("the database returned no generated ID");
            }
            return keys.getLong(1);
        }
    }

    /** Samples of every point of a study by point ID, in order. */
    private static Map<Long, List<Sample>> loadSamples(Connection c, long studyId) throws SQLException, IOException {
        Map<Long, List<Sample>> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT s.point_id, s.server_cpu_pct, s.interval_json"
                + " FROM sample s JOIN point p ON p.id = s.point_id WHERE p.study_id = ? ORDER BY s.point_id, s.seq")) {
            ps.setLong(1, studyId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Interval interval = LabJson.read(rs.getString(3), Interval.class);
                    out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>())
                            .add(new Sample(interval, rs.getDouble(2)));
                }
            }
        }
        return out;
    }

    /** Fixed points in order into {@code fixed}; ramp steps in order into {@code steps} by ramp ID. */
    private static void loadPoints(Connection c, long studyId, Map<Long, List<Sample>> samples, List<PointRun> fixed,
                                   Map<Long, List<PointRun>> steps) throws SQLException, IOException {
        try (PreparedStatement ps = c.prepareStatement("SELECT id, ramp_id, summary_json FROM point"
                + " WHERE study_id = ? ORDER BY id")) {
            ps.setLong(1, studyId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long pointId = rs.getLong(1);
                    long rampId = rs.getLong(2);
                    boolean isFixed = rs.wasNull();
                    if (!(LabJson.reader(PointRun.class).readTree(rs.getString(3)) instanceof ObjectNode json)) {
                        throw new IOException("point " + pointId + ": summary_json is not a JSON object");
                    }
                    ArrayNode list = json.putArray(SAMPLES);
                    for (Sample s : samples.getOrDefault(pointId, List.of())) {
                        list.add(LabJson.objectTree(s));
                    }
                    PointRun p = LabJson.read(json, PointRun.class);
                    if (isFixed) {
                        fixed.add(p);
                    } else {
                        steps.computeIfAbsent(rampId, k -> new ArrayList<>()).add(p);
                    }
                }
            }
        }
    }

    private static List<PeakSearch> loadRamps(Connection c, long studyId, Map<Long, List<PointRun>> steps)
            throws SQLException {
        List<PeakSearch> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT id, scenario, cipher, repetition, peak_rate,"
                + " sustainable_rate, stopped_by FROM ramp WHERE study_id = ? ORDER BY id")) {
            ps.setLong(1, studyId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new PeakSearch(rs.getString(2), rs.getString(3), rs.getInt(4), rs.getDouble(5),
                            rs.getDouble(6), rs.getString(7), steps.getOrDefault(rs.getLong(1), List.of())));
                }
            }
        }
        return out;
    }

    private static List<String> splitCiphers(String joined) {
        return joined.isEmpty() ? List.of() : Arrays.asList(joined.split(",", -1));
    }
}
