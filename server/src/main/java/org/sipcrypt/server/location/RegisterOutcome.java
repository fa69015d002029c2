package org.sipcrypt.server.location;

import java.util.List;
import java.util.Objects;

/**
 * What applying a {@link RegisterChange} did.
 * Threading: immutable.
 */
public sealed interface RegisterOutcome {

    /** The change was applied; {@code bindings} are the AOR's live bindings afterwards. */
    record Applied(List<Binding> bindings) implements RegisterOutcome {
        public Applied {
            bindings = List.copyOf(Objects.requireNonNull(bindings, "bindings"));
        }
    }

    /**
     * The change was aborted and nothing was written: a binding with the same Call-ID already
     * carries a CSeq at least as high (RFC 3261 §10.3 step 7; the request fails with 500).
     */
    record OutOfOrder(String contact, long storedCseq) implements RegisterOutcome {
        public OutOfOrder {
            Objects.requireNonNull(contact, "contact");
        }
    }

    /**
     * The change was refused and nothing was written: it would leave the address-of-record with
     * more than {@code limit} bindings (the registrar answers 403).
     */
    record TooManyContacts(int limit) implements RegisterOutcome {
    }

    /**
     * The change was refused and nothing was written: it would add bindings beyond the
     * {@code limit} the location service holds in all (the registrar answers 503).
     */
    record Full(int limit) implements RegisterOutcome {
    }
}
