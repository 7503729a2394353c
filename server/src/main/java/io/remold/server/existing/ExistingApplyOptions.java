package io.remold.server.existing;

/**
 * How the leader applies rules to existing objects.
 *
 * @param fieldManager     the field manager its applies are made under ({@code existing-field-manager})
 * @param writesPerSecond  at most this many objects written per second ({@code existing-apply-rate})
 */
public record ExistingApplyOptions(String fieldManager, int writesPerSecond) {
    public static final String FIELD_MANAGER_OPTION = "existing-field-manager";
    public static final String RATE_OPTION = "existing-apply-rate";

    public ExistingApplyOptions {
        if (fieldManager == null || fieldManager.isBlank() || fieldManager.length() > 128) {
            throw new IllegalArgumentException(FIELD_MANAGER_OPTION + " must be 1 to 128 characters: \""
                    + fieldManager + "\"");
        }
        if (writesPerSecond < 1) {
            throw new IllegalArgumentException(RATE_OPTION + " must be at least 1: " + writesPerSecond);
        }
    }
}
