package io.remold.server.rules;

import io.remold.scripting.ScriptHost;

import java.util.Set;

/**
 * Where script rules' create/update/delete events come from (cluster mode): told, after each rule snapshot that has
 * script rules, the host to feed and the resources (plural, as {@code pods}) its scripts receive events of, so that
 * it watches exactly those.
 */
public interface ScriptEvents {
    void use(ScriptHost host, Set<String> resources);
}
