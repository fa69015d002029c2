/**
 * Turns studies into what people and other tools read: mean and 95 % confidence interval per
 * scenario and cipher over repetitions, ratios to the plaintext baselines, a self-contained Markdown
 * and HTML report (inline CSS and SVG, nothing fetched), {@code results.json} (whole studies, read
 * back by {@link org.sipcrypt.lab.report.JsonExport#read}), {@code results.csv} and {@code peaks.csv},
 * and whether a second run agrees with the first ({@link org.sipcrypt.lab.report.RunAgreement}).
 * Depends on the runner's result records, the cost model and the store's JSON configuration; never
 * runs anything, opens the database or depends on the load generator.
 */
package org.sipcrypt.lab.report;
