package org.sipcrypt.server.tls;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks OCSP responders (RFC 6960 Appendix A: HTTP POST of {@code application/ocsp-request}) about
 * certificates and keeps their checked answers ({@link OcspResponses}) in a cache of at most
 * {@link #MAX_CACHED} certificates, the least used leaving first: an answer until its nextUpdate or
 * {@code tls.ocspCacheTime}, whichever comes first; a failed fetch {@link #FAILURE_KEPT} (at most the
 * cache time), so a responder that is down is not asked at handshake rate. {@link #cached} answers at
 * once from the cache, or starts the one fetch of that certificate and answers null: the handshake
 * that asked never waits. Fetches run on the JDK's HttpClient with the executor {@code sipcrypt-ocsp}
 * (2 threads), each ended by {@code tls.ocspTimeout}; at most {@link #MAX_IN_FLIGHT} at once, a
 * certificate beyond that gets a failed answer. Responses longer than {@link #MAX_RESPONSE_BYTES} are
 * refused. Fetch outcomes and their time are counted for {@code tls.ocsp.fetches}.
 * Threading: thread-safe; {@link #cached} never blocks and may run on event loops; fetches complete on
 * {@code sipcrypt-ocsp}.
 */
public final class OcspClient implements AutoCloseable {

    /** Most certificates whose answers are kept. */
    public static final int MAX_CACHED = 10_000;
    /** Most fetches running at once. */
    public static final int MAX_IN_FLIGHT = 64;
    /** The longest response read: far above a one-certificate response with a responder chain. */
    public static final int MAX_RESPONSE_BYTES = 64 * 1024;
    /** How long a fetch that gave no trustworthy answer is remembered. */
    public static final Duration FAILURE_KEPT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(OcspClient.class);

    private final URI responder;
    private final Duration timeout;
    private final Duration cacheTime;
    private final Clock clock;
    private final ThreadPoolExecutor executor;
    private final HttpClient http;
    private final AsyncCache<Key, OcspAnswer> cache;
    private final SecureRandom random = new SecureRandom();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder[] fetches = new LongAdder[OcspAnswer.Fetch.values().length];
    private final LongAdder fetchNanos = new LongAdder();

    /** Which certificate an answer is about: its issuer's key and its serial (RFC 6960 §4.1.1's CertID). */
    private record Key(String issuerKey, BigInteger serial) {
    }

    /**
     * @param responder the responder asked about every certificate ({@code tls.ocspResponder}); null: each
     *                  certificate's own
     */
    public OcspClient(URI responder, Duration timeout, Duration cacheTime, Clock clock) {
        this.responder = responder;
        this.timeout = timeout;
        this.cacheTime = cacheTime;
        this.clock = clock;
        for (int i = 0; i < fetches.length; i++) {
            fetches[i] = new LongAdder();
        }
        // the queue holds HttpClient's own tasks for at most MAX_IN_FLIGHT fetches
        this.executor = NamedThreads.numbered("sipcrypt-ocsp").boundedPool(2, 4_096);
        this.executor.setKeepAliveTime(30, TimeUnit.SECONDS);
        this.executor.allowCoreThreadTimeOut(true);
        this.http = HttpClient.newBuilder().executor(executor).connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER).build();
        this.cache = Caffeine.newBuilder().maximumSize(MAX_CACHED).executor(executor)
                .expireAfter(new Expiry<Key, OcspAnswer>() {
                    @Override
                    public long expireAfterCreate(Key key, OcspAnswer answer, long currentTime) {
                        return kept(answer).toNanos();
                    }

                    @Override
                    public long expireAfterUpdate(Key key, OcspAnswer answer, long currentTime, long currentDuration) {
                        return kept(answer).toNanos();
                    }

                    @Override
                    public long expireAfterRead(Key key, OcspAnswer answer, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                }).buildAsync();
    }

    /** How long {@code answer} is used: until its nextUpdate, at most the cache time; a failure briefly. */
    Duration kept(OcspAnswer answer) {
        if (answer.status() == PeerRevocation.Result.ERROR) {
            return FAILURE_KEPT.compareTo(cacheTime) < 0 ? FAILURE_KEPT : cacheTime;
        }
        if (answer.nextUpdate() == null) {
            return cacheTime;
        }
        Duration left = Duration.between(clock.instant(), answer.nextUpdate());
        return left.isNegative() ? Duration.ZERO : left.compareTo(cacheTime) < 0 ? left : cacheTime;
    }

    /**
     * The cached answer about {@code cert} (issued by {@code issuer}), or null when there is none yet:
     * then its fetch is running, started now or by an earlier handshake.
     */
    public OcspAnswer cached(X509Certificate cert, X509Certificate issuer) {
        CompletableFuture<OcspAnswer> f = answer(cert, issuer);
        return f.isDone() ? f.getNow(null) : null;
    }

    /** The answer about {@code cert}: cached, or from the one fetch of it (started now if none runs). */
    public CompletableFuture<OcspAnswer> answer(X509Certificate cert, X509Certificate issuer) {
        Key key = new Key(keyHash(issuer), cert.getSerialNumber());
        return cache.get(key, (k, e) -> fetch(cert, issuer));
    }

    /**
     * Fetches the answer about {@code cert} now, past the cache (for stapling): the answer, and the
     * response's bytes when it was verified, else null. Never completes exceptionally.
     */
    public CompletableFuture<Fetched> fetch(X509Certificate cert, X509Certificate issuer, boolean keepBytes) {
        List<URI> urls = responder != null ? List.of(responder) : OcspResponses.responders(cert);
        if (urls.isEmpty()) {
            return CompletableFuture.completedFuture(new Fetched(counted(OcspAnswer.error(OcspAnswer.Fetch.FAILED,
                    "no OCSP responder: the certificate names none and tls.ocspResponder is not set"), 0), null));
        }
        if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
            inFlight.decrementAndGet();
            return CompletableFuture.completedFuture(new Fetched(counted(OcspAnswer.error(OcspAnswer.Fetch.FAILED,
                    MAX_IN_FLIGHT + " OCSP fetches already running"), 0), null));
        }
        URI url = urls.get(0);
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        long started = System.nanoTime();
        CompletableFuture<Fetched> out;
        try {
            HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout)
                    .header("Content-Type", "application/ocsp-request").header("Accept", "application/ocsp-response")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(OcspResponses.request(cert, issuer, nonce))).build();
            out = http.sendAsync(request, OcspClient::limitedBody)
                    .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .handleAsync((response, failure) -> {
                        if (failure != null) {
                            Throwable cause = failure instanceof java.util.concurrent.CompletionException
                                    && failure.getCause() != null ? failure.getCause() : failure;
                            boolean late = cause instanceof TimeoutException
                                    || cause instanceof java.net.http.HttpTimeoutException;
                            return new Fetched(OcspAnswer.error(late ? OcspAnswer.Fetch.TIMEOUT : OcspAnswer.Fetch.FAILED,
                                    url + ": " + (late ? "no answer within " + timeout : String.valueOf(cause))), null);
                        }
                        if (response.statusCode() != 200 || response.body() == null) {
                            return new Fetched(OcspAnswer.error(OcspAnswer.Fetch.FAILED, url + ": HTTP "
                                    + response.statusCode() + (response.body() == null && response.statusCode() == 200
                                    ? ", longer than " + MAX_RESPONSE_BYTES + " bytes" : "")), null);
                        }
                        OcspAnswer a = OcspResponses.read(response.body(), cert, issuer, nonce, clock.instant(), cacheTime);
                        return new Fetched(a, keepBytes && a.status() != PeerRevocation.Result.ERROR ? response.body() : null);
                    }, executor);
        } catch (IOException | RuntimeException e) {
            out = CompletableFuture.completedFuture(new Fetched(OcspAnswer.error(OcspAnswer.Fetch.FAILED,
                    url + ": " + e), null));
        }
        return out.handle((f, failure) -> {
            inFlight.decrementAndGet();
            Fetched done = failure != null ? new Fetched(OcspAnswer.error(OcspAnswer.Fetch.FAILED, url + ": " + failure), null) : f;
            counted(done.answer(), System.nanoTime() - started);
            if (done.answer().status() != PeerRevocation.Result.GOOD) {
                log.debug("OCSP about {} (serial {}) from {}: {}", cert.getSubjectX500Principal().getName(),
                        cert.getSerialNumber().toString(16), url, done.answer());
            }
            return done;
        });
    }

    private CompletableFuture<OcspAnswer> fetch(X509Certificate cert, X509Certificate issuer) {
        return fetch(cert, issuer, false).thenApply(Fetched::answer);
    }

    /** A fetch's checked answer, and the response's DER bytes when they were asked for and verified. */
    public record Fetched(OcspAnswer answer, byte[] der) {
    }

    private OcspAnswer counted(OcspAnswer a, long nanos) {
        fetches[a.fetch().ordinal()].increment();
        fetchNanos.add(nanos);
        return a;
    }

    /** How many fetches ended as {@code outcome}. */
    public long fetches(OcspAnswer.Fetch outcome) {
        return fetches[outcome.ordinal()].sum();
    }

    /** All fetches ended so far. */
    public long fetchCount() {
        long n = 0;
        for (LongAdder a : fetches) {
            n += a.sum();
        }
        return n;
    }

    /** Time spent in fetches so far, in nanoseconds. */
    public long fetchNanos() {
        return fetchNanos.sum();
    }

    /** The executor fetches complete on, for refreshes that follow them. */
    java.util.concurrent.Executor executor() {
        return executor;
    }

    /** The responder asked about every certificate, or null. */
    public URI responder() {
        return responder;
    }

    private static String keyHash(X509Certificate issuer) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(issuer.getPublicKey().getEncoded()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /** The body of a 200 response, at most {@link #MAX_RESPONSE_BYTES}; null for another status or a longer body. */
    private static HttpResponse.BodySubscriber<byte[]> limitedBody(HttpResponse.ResponseInfo info) {
        if (info.statusCode() != 200) {
            return HttpResponse.BodySubscribers.replacing(null);
        }
        return new LimitedBytes();
    }

    /** Collects a body up to the limit, cancelling beyond it. Threading: HttpClient's, one subscriber per response. */
    private static final class LimitedBytes implements HttpResponse.BodySubscriber<byte[]> {
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        private Flow.Subscription subscription;

        @Override
        public CompletionStage<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer b : items) {
                if (bytes.size() + b.remaining() > MAX_RESPONSE_BYTES) {
                    subscription.cancel();
                    body.complete(null);
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable t) {
            body.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            body.complete(bytes.toByteArray());
        }
    }

    /** Stops the fetch threads; answers in flight are dropped. */
    @Override
    public void close() {
        executor.shutdownNow();
    }

    /** The instant answers are judged at. */
    Instant now() {
        return clock.instant();
    }
}
