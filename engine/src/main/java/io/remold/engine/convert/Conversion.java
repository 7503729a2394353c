package io.remold.engine.convert;

import io.remold.api.ModRule;
import io.remold.engine.Engine;
import io.remold.engine.RuleCompilation;

import java.util.List;

/** What one input rule gives when converted to {@code remold.io} ModRules: the rules, or why there are none. */
public sealed interface Conversion {
    record Converted(List<ModRule> rules) implements Conversion {
        public Converted {
            rules = List.copyOf(rules);
        }
    }

    /** No exact equivalent: {@code reason} names the construct. */
    record Refused(String reason) implements Conversion {
    }

    /** Converted, unless a rule does not compile: that is the converter's bug, so it is refused rather than printed. */
    public static Conversion checked(List<ModRule> rules) {
        for (ModRule rule : rules) {
            RuleCompilation compilation = Engine.compile(rule);
            if (!compilation.ok()) {
                return new Refused("the converted rule does not compile (a bug of remold convert): "
                        + compilation.errors());
            }
        }
        return new Converted(rules);
    }
}
