package org.sipcrypt.server.location;

import java.util.List;

/**
 * The location database's schema history, fed to a {@link SchemaMigrator} when the database is
 * opened: the AORs and bindings of the location service, the digest subscribers and the call detail records.
 * Threading: immutable.
 */
final class LocationSchema {

    /** The schema history, oldest first. Never edit an applied version; append a new one. */
    static final SchemaMigrator MIGRATOR = SchemaMigrator.of(List.of(
            new SchemaMigrator.Migration(1, List.of(
                    // Every AOR that ever registered: lets the proxy tell 404 (unknown) from 480 (no binding).
                    "CREATE TABLE IF NOT EXISTS aors ("
                            + "aor VARCHAR(512) PRIMARY KEY, "
                            + "first_registered BIGINT NOT NULL, "
                            + "last_registered BIGINT NOT NULL)",
                    "CREATE TABLE IF NOT EXISTS bindings ("
                            + "aor VARCHAR(512) NOT NULL, "
                            + "contact_key VARCHAR(1024) NOT NULL, "
                            + "contact VARCHAR(2048) NOT NULL, "
                            + "expires_at BIGINT NOT NULL, "
                            + "call_id VARCHAR(256) NOT NULL, "
                            + "cseq BIGINT NOT NULL, "
                            + "q REAL NOT NULL, "
                            + "received VARCHAR(128) NOT NULL, "
                            + "updated_at BIGINT NOT NULL, "
                            + "PRIMARY KEY (aor, contact_key))",
                    "CREATE INDEX IF NOT EXISTS bindings_expires_at ON bindings (expires_at)")),
            new SchemaMigrator.Migration(2, List.of(
                    // Digest subscribers (RFC 3261 §22): HA1 per algorithm, never the password.
                    "CREATE TABLE IF NOT EXISTS subscribers ("
                            + "realm VARCHAR(128) NOT NULL, "
                            + "username VARCHAR(128) NOT NULL, "
                            + "ha1_md5 VARCHAR(32) NOT NULL, "
                            + "ha1_sha256 VARCHAR(64) NOT NULL, "
                            + "enabled BOOLEAN NOT NULL, "
                            + "updated_at BIGINT NOT NULL, "
                            + "PRIMARY KEY (realm, username))")),
            new SchemaMigrator.Migration(3, List.of(
                    // Legal Call-IDs longer than 256 characters were refused by the column (and answered 503);
                    // the registrar now stores up to 1024 and answers 400 beyond.
                    "ALTER TABLE bindings ALTER COLUMN call_id SET DATA TYPE VARCHAR(1024)")),
            new SchemaMigrator.Migration(4, List.of(
                    // The flow a binding registered over (RFC 5626 §3.3, transport.Flow's text form), whether
                    // the registrar saw a NAT between it and the phone, and the phone's RFC 5626 instance and
                    // reg-id: requests for the AOR go over that flow.
                    "ALTER TABLE bindings ADD COLUMN IF NOT EXISTS flow VARCHAR(128)",
                    "ALTER TABLE bindings ADD COLUMN IF NOT EXISTS nat BOOLEAN DEFAULT FALSE NOT NULL",
                    "ALTER TABLE bindings ADD COLUMN IF NOT EXISTS instance VARCHAR(256)",
                    "ALTER TABLE bindings ADD COLUMN IF NOT EXISTS reg_id INTEGER DEFAULT 0 NOT NULL")),
            new SchemaMigrator.Migration(5, List.of(
                    // The Path an edge proxy recorded in the REGISTER (RFC 3327 §5.3), comma-separated, first hop
                    // first: requests for the binding are routed through it. Null for a binding without one.
                    "ALTER TABLE bindings ADD COLUMN IF NOT EXISTS path VARCHAR(1024)")),
            new SchemaMigrator.Migration(6, List.of(
                    // Call detail records (cdr.sink=database), one row per INVITE call through the proxy; times in
                    // epoch milliseconds, null where unknown. Written by the server, read by billing.
                    "CREATE TABLE IF NOT EXISTS cdrs ("
                            + "call_id VARCHAR(1024) NOT NULL, "
                            + "start_ms BIGINT NOT NULL, "
                            + "answer_ms BIGINT, "
                            + "end_ms BIGINT, "
                            + "caller VARCHAR(1024), "
                            + "callee VARCHAR(1024), "
                            + "auth_user VARCHAR(128), "
                            + "in_transport VARCHAR(8), "
                            + "in_cipher VARCHAR(128), "
                            + "out_transport VARCHAR(8), "
                            + "out_cipher VARCHAR(128), "
                            + "status INTEGER, "
                            + "duration_ms BIGINT, "
                            + "ended_by VARCHAR(16) NOT NULL)",
                    "CREATE INDEX IF NOT EXISTS cdrs_start_ms ON cdrs (start_ms)",
                    "CREATE INDEX IF NOT EXISTS cdrs_call_id ON cdrs (call_id)"))));

    private LocationSchema() {
    }
}
