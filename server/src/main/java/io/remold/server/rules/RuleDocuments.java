package io.remold.server.rules;

import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import io.remold.api.Provider;
import io.remold.api.YamlJson;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.mutators.InvalidMutatorException;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.scripting.InvalidScriptException;
import io.remold.scripting.ScriptRule;
import io.remold.scripting.Scripts;
import jakarta.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the rules of one YAML or JSON text, whatever their family: ModRules ({@code remold.io},
 * {@code api.kubemod.io}), Gatekeeper mutators ({@code mutations.gatekeeper.sh}) and script rules
 * ({@code momiji.com}), each with the document it came
 * from; and external data Providers ({@code remold.io} {@code Provider}), which only {@link #readAll} returns. Every
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

        /** {@code namespace/name} of a ModRule, {@code Kind/name} of a mutator: unique within a rule set. */
        String id();
    }

    public record RuleEntry(int document, String prefix, ModRule rule) implements Entry {
        @Override
        public String id() {
            return rule.id();
        }
    }

    /** A mutator, with its manifest (what {@code convert} reads the parameters from). */
    public record MutatorEntry(int document, String prefix, Mutator mutator, JsonObject manifest) implements Entry {
        @Override
        public String id() {
            return mutator.id().toString();
        }
    }

    /** A script rule ({@code JsAdmission}, {@code ClusterJsAdmission}). */
    public record ScriptEntry(int document, String prefix, ScriptRule rule) implements Entry {
        @Override
        public String id() {
            return rule.id();
        }
    }

    /** An external data Provider and its 1-based non-empty document. */
    public record ProviderEntry(int document, Provider provider) {
    }

    /** The rules and the Providers of one text. */
    public record Contents(List<Entry> rules, List<ProviderEntry> providers) {
    }

    /** The rules of a text; its Providers are checked (a broken one is an error) but left out. */
    public static List<Entry> read(String text, String source) {
        return readAll(text, source).rules();
    }

    public static Contents readAll(String text, String source) {
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
            if (doc.value() instanceof JsonObject manifest && Gatekeeper.isMutator(manifest)) {
                out.add(new MutatorEntry(number, "", mutator(manifest, doc, number, source), manifest));
                continue;
            }
            if (doc.value() instanceof JsonObject manifest && Scripts.isScript(manifest)) {
                out.add(new ScriptEntry(number, "", script(manifest, doc, number, source)));
                continue;
            }
            List<ModRule> rules = ModRules.fromDocument(doc, number, source);
            boolean list = doc.value() instanceof JsonObject o
                    && ("List".equals(o.getString("kind", "")) || "ModRuleList".equals(o.getString("kind", "")));
            for (int i = 0; i < rules.size(); i++) {
                out.add(new RuleEntry(number, list ? "items[" + i + "]." : "", rules.get(i)));
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

    private static ScriptRule script(JsonObject manifest, YamlJson.Document doc, int number, String source) {
        try {
            return Scripts.parse(manifest);
        } catch (InvalidScriptException e) {
            int[] at = doc.position(e.field());
            throw new ModRuleException(source, number, e.field(), at[0], at[1], e.reason());
        }
    }

    private static Mutator mutator(JsonObject manifest, YamlJson.Document doc, int number, String source) {
        try {
            return Gatekeeper.parse(manifest);
        } catch (InvalidMutatorException e) {
            int[] at = doc.position(e.field());
            throw new ModRuleException(source, number, e.field(), at[0], at[1], e.reason());
        }
    }
}
