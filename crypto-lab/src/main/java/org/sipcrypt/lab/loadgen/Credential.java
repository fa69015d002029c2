package org.sipcrypt.lab.loadgen;

import java.util.Objects;

/**
 * A subscriber the UAC acts as: the user name (the user part of From, and of To in a REGISTER) and
 * the password that answers digest challenges. {@link #toString} masks the password.
 * Threading: immutable.
 *
 * @param user     the user name, as provisioned on the server
 * @param password the clear-text password
 */
public record Credential(String user, String password) {

    public Credential {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (user.isEmpty()) {
            throw new IllegalArgumentException("user: empty user name");
        }
    }

    @Override
    public String toString() {
        return user + " (password=<masked>)";
    }
}
