package io.remold.rules;

import io.remold.api.InvalidFieldException;
import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import io.remold.api.Provider;
import io.remold.api.RuleControls;
import io.remold.api.YamlJson;
import io.remold.engine.Family;
import jakarta.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the rules of one YAML or JSON text, whatever their family: ModRules ({@code remold.io},
 * {@code api.kubemod.io}) and the rules of each {@link Families family} (Gatekeeper mutators, script rules), each
 * with the document it came from; and external data Providers ({@code remold.io} {@code Provider}), which only {@link #readAll} returns. Every
 * problem is a {@link ModRuleException} naming source, document, field and line.
 */
public final class RuleDocuments {
    private RuleDocuments() {
    }

    /** A rule and where it stands: its 1-based non-empty document and, in a {@code List}, its item. */
    public sealed interface Entry {
        int document();

        /** {@code items[N].} for an item of a List document, else empty. */
        String prefix();

        /** {@code namespace/name} of a ModRule, its family's id of another rule: unique within a rule set. */
        String id();

        /** Its mode and existing policy ({@link RuleControls#read}). */
        RuleControls controls();
    }

    public record RuleEntry(int document, String prefix, ModRule rule, RuleControls controls) implements Entry {
        @Override
        public String id() {
            return rule.id();
        }
    }

    /**
     * A rule of a {@link Family} beside ModRules, with its manifest (what {@code convert} reads a mutator's parameters
     * from).
     */
    public record FamilyEntry<R>(int document, String prefix, Family<R> family, R rule, JsonObject manifest,
                                 RuleControls controls) implements Entry {
        @Override
        public String id() {
            return family.id(rule);
        }
    }

    /** An external data Provider and its 1-based non-empty document. */
    public record ProviderEntry(int document, Provider provider) {
    }

    /** The rules and the Providers of one text. */
    public record Contents(List<Entry> rules, List<ProviderEntry> providers) {
    }

    /** The families a text's rules are read as (their readers keep no runtime: nothing is compiled into a stage). */
    private static final List<Family<?>> FAMILIES = Families.create();

    /** The rules of a text; its Providers are checked (a broken one is an error) but left out. */
    public static List<Entry> read(String text, String source) {
        return readAll(text, source).rules();
    }

    public static Contents readAll(String text, String source) {
        return readAll(text, source, FAMILIES);
    }

    /** As {@link #readAll(String, String)}, reading the rules of {@code families} beside ModRules. */
    public static Contents readAll(String text, String source, List<Family<?>> families) {
        var out = new ArrayList<Entry>();
        var providers = new ArrayList<ProviderEntry>();
        List<YamlJson.Document> documents = YamlJson.documents(text, source);
        for (int d = 0; d < documents.size(); d++) {
            YamlJson.Document doc = documents.get(d);
            int number = d + 1;
            if (doc.value() instanceof JsonObject manifest && Provider.isProvider(manifest)) {
                providers.add(new ProviderEntry(number, provider(manifest, doc, number, source)));
                continue;
            }
            Optional<Family<?>> family = doc.value() instanceof JsonObject manifest
                    ? families.stream().filter(f -> f.owns(manifest)).findFirst() : Optional.empty();
            if (family.isPresent()) {
                out.add(entry(family.get(), (JsonObject) doc.value(), doc, number, source));
                continue;
            }
            List<ModRule> rules = ModRules.fromDocument(doc, number, source);
            boolean list = doc.value() instanceof JsonObject o
                    && ("List".equals(o.getString("kind", "")) || "ModRuleList".equals(o.getString("kind", "")));
            for (int i = 0; i < rules.size(); i++) {
                // The reader checked each rule's controls: reading them again cannot fail.
                JsonObject manifest = list ? doc.value().asJsonObject().getJsonArray("items").getJsonObject(i)
                        : doc.value().asJsonObject();
                out.add(new RuleEntry(number, list ? "items[" + i + "]." : "", rules.get(i),
                        RuleControls.read(manifest)));
            }
        }
        return new Contents(List.copyOf(out), List.copyOf(providers));
    }

    private static Provider provider(JsonObject manifest, YamlJson.Document doc, int number, String source) {
        try {
            return Provider.fromJson(manifest, source);
        } catch (ModRuleException e) {
            int[] at = doc.position(e.field());
            throw new ModRuleException(source, number, e.field(), at[0], at[1], e.problem());
        }
    }

    private static <R> FamilyEntry<R> entry(Family<R> family, JsonObject manifest, YamlJson.Document doc, int number,
                                            String source) {
        try {
            R rule = family.parse(manifest);
            return new FamilyEntry<>(number, "", family, rule, manifest,
                    RuleControls.read(manifest, family.canRefuse(rule)));
        } catch (InvalidFieldException e) {
            int[] at = doc.position(e.field());
            throw new ModRuleException(source, number, e.field(), at[0], at[1], e.reason());
        }
    }
}
