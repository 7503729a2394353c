package io.remold.gatekeeper.path;

/** A location that does not parse: the text, the 0-based character position and Gatekeeper's reason. */
public final class LocationSyntaxException extends RuntimeException {
    private final String location;
    private final int position;
    private final String reason;

    public LocationSyntaxException(String location, int position, String reason) {
        super(reason + " at position " + position + " of \"" + location + "\"");
        this.location = location;
        this.position = position;
        this.reason = reason;
    }

    public String location() {
        return location;
    }

    public int position() {
        return position;
    }

    public String reason() {
        return reason;
    }
}
