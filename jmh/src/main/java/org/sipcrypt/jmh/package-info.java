/**
 * JMH micro-benchmarks of what the server pays per message and per connection: the TLS record
 * layer per cipher suite, TLS engine and crypto engine, TLS handshakes (server and client side
 * apart), digest authentication and nonces, and JAIN-SIP parsing; plus {@code BenchmarkMain}, the
 * one command that runs them and writes the JSON results and a Markdown summary beside
 * {@code openssl speed}. Measures the server's own public classes and never re-implements them;
 * nothing in the server depends on this package.
 */
package org.sipcrypt.jmh;
