package io.remold.server.existing;

import jakarta.json.JsonObject;

/**
 * Told of every rule object the cluster's informers see (a ModRule, a Gatekeeper mutator, a JsAdmission, a kinitiras
 * policy), as the rule sources receive them: each version, its status included, and its removal.
 */
public interface RuleEvents {
    void changed(String group, String version, String plural, JsonObject manifest);

    void removed(String group, String version, String plural, String namespace, String name);

    RuleEvents NONE = new RuleEvents() {
        @Override
        public void changed(String group, String version, String plural, JsonObject manifest) {
        }

        @Override
        public void removed(String group, String version, String plural, String namespace, String name) {
        }
    };
}
