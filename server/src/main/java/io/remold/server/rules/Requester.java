package io.remold.server.rules;

import java.util.List;
import java.util.Map;

/**
 * Who made an admission request, as the API server authenticated them ({@code request.userInfo}): what an access
 * review asks about.
 */
public record Requester(String user, List<String> groups, String uid, Map<String, List<String>> extra) {
    public Requester {
        groups = List.copyOf(groups);
        extra = Map.copyOf(extra);
    }

    /** For a request without userInfo (never sent by an API server): a user no authorizer allows anything. */
    public static final Requester NOBODY = new Requester("", List.of(), "", Map.of());
}
