package org.sipcrypt.server.location;

import java.util.List;
import java.util.Objects;

/**
 * The answer of a location lookup: whether the AOR is known at all (it has registered at some
 * time), and its live bindings ordered by q value, highest first.
 * Threading: immutable.
 */
public record LookupResult(boolean known, List<Binding> bindings) {

    public LookupResult {
        bindings = List.copyOf(Objects.requireNonNull(bindings, "bindings"));
    }
}
