package io.remold.engine;

import io.remold.api.ModRule;
import io.remold.api.OnMissing;
import io.remold.api.Reference;
import io.remold.json.JsonTree;
import io.remold.templating.ExternalData;
import io.remold.templating.RenderBudget;
import io.remold.templating.TemplateContext;
import io.remold.templating.TemplateException;
import io.remold.templating.Templates;
import io.remold.templating.TextTemplate;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import static io.remold.templating.TemplateContext.SYNTHETIC_REFS;

/**
 * The compiled {@code spec.references} of one rule, and their binding for one request: each resolved object (or list)
 * goes under {@code syntheticRefs.NAME} of the object the rule's remaining match items and templates see.
 */
final class RuleReferences {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** The names syntheticRefs already has. */
    private static final Set<String> RESERVED = Set.of("namespace", "node");
    /** References one rule may have: each is a look-up per request that reaches the rule's reference items. */
    static final int MAX_REFERENCES = 16;
    /**
     * Objects one selector reference may bring: every one is copied into what the rule sees; a namespace's
     * ConfigMaps or Deployments of one team number tens, a selector that matches a thousand is a mistake.
     */
    static final int MAX_SELECTED = 1000;

    static final RuleReferences NONE = new RuleReferences(List.of());

    /** One reference with its templates compiled ({@code namespace} null when not given). */
    record Compiled(Reference reference, TextTemplate objectName, TextTemplate namespace) {
    }

    /** What binding gave: the object to go on with, or why the rule stops (skipped, or failed with an error). */
    sealed interface Binding {
        List<String> explained();
    }

    record Bound(JsonValue object, List<String> explained) implements Binding {
    }

    record Skipped(String reason, List<String> explained) implements Binding {
    }

    record Failed(String error, List<String> explained) implements Binding {
    }

    final List<Compiled> compiled;
    final Set<String> names;

    private RuleReferences(List<Compiled> compiled) {
        this.compiled = List.copyOf(compiled);
        var all = new HashSet<String>();
        compiled.forEach(c -> all.add(c.reference().name()));
        this.names = Set.copyOf(all);
    }

    boolean isEmpty() {
        return compiled.isEmpty();
    }

    /** Compiles the references, adding every problem with its field. */
    static RuleReferences compile(List<Reference> references, List<RuleCompilation.Problem> problems) {
        if (references.isEmpty()) {
            return NONE;
        }
        if (references.size() > MAX_REFERENCES) {
            problems.add(new RuleCompilation.Problem("spec.references", 0,
                    "at most " + MAX_REFERENCES + " references, not " + references.size()));
        }
        var out = new ArrayList<Compiled>();
        var seen = new HashSet<String>();
        for (int i = 0; i < references.size(); i++) {
            Reference ref = references.get(i);
            String at = "spec.references[" + i + "]";
            if (!NAME.matcher(ref.name()).matches()) {
                problems.add(new RuleCompilation.Problem(at + ".name", 0, "\"" + ref.name()
                        + "\" is not a name: letters, digits and _, not starting with a digit"));
            } else if (RESERVED.contains(ref.name())) {
                problems.add(new RuleCompilation.Problem(at + ".name", 0, "\"" + ref.name()
                        + "\" is syntheticRefs." + ref.name() + " already: choose another name"));
            } else if (!seen.add(ref.name())) {
                problems.add(new RuleCompilation.Problem(at + ".name", 0, "\"" + ref.name() + "\" is used twice"));
            }
            TextTemplate name = ref.objectName() == null ? null : text(ref.objectName(), at + ".objectName", problems);
            TextTemplate namespace = ref.namespace() == null ? null : text(ref.namespace(), at + ".namespace", problems);
            out.add(new Compiled(ref, name, namespace));
        }
        return new RuleReferences(out);
    }

    /** Problems that depend on where the rule sits: only cluster-wide rules may say where to look. */
    static List<RuleCompilation.Problem> scopeProblems(ModRule rule, boolean clusterWide) {
        var problems = new ArrayList<RuleCompilation.Problem>();
        if (clusterWide) {
            return problems;
        }
        List<Reference> references = rule.spec().references();
        for (int i = 0; i < references.size(); i++) {
            if (references.get(i).namespace() != null) {
                problems.add(new RuleCompilation.Problem("spec.references[" + i + "].namespace", 0,
                        "only rules in the system namespace may read another namespace; this rule reads its own ("
                                + rule.namespace() + ")"));
            }
        }
        return problems;
    }

    private static TextTemplate text(String source, String field, List<RuleCompilation.Problem> problems) {
        try {
            return Templates.compileText(source);
        } catch (TemplateException e) {
            problems.add(new RuleCompilation.Problem(field, 0, e.getMessage()));
            return null;
        }
    }

    /**
     * Resolves every reference against {@code object} (the object the rule sees, with the namespace and node) and
     * adds them under {@code syntheticRefs}. {@code ruleNamespace} is where a namespaced rule reads, whatever it says.
     */
    Binding bind(String rule, String ruleNamespace, boolean clusterWide, JsonValue object, AdmissionRequest request,
                 ReferenceResolver resolver, ExternalData external, RenderBudget budget) {
        var explained = new ArrayList<String>(compiled.size());
        JsonObject refs = object instanceof JsonObject o && o.get(SYNTHETIC_REFS) instanceof JsonObject r
                ? r : JsonValue.EMPTY_JSON_OBJECT;
        var context = new TemplateContext(object, request.namespace(), null, List.of(), request.operation().name(),
                request.oldObject(), external, budget);
        for (Compiled c : compiled) {
            Reference ref = c.reference();
            String label = ref.name() + ": ";
            ReferenceQuery query;
            try {
                query = query(rule, ruleNamespace, clusterWide, c, context, request);
            } catch (RuntimeException e) {
                explained.add(label + "failed: " + e.getMessage());
                return new Failed("reference " + ref.name() + ": " + e.getMessage(), explained);
            }
            JsonValue value = null;
            String missing = null;
            if (query.name() != null && query.name().isEmpty()) {
                missing = "objectName renders empty";
            } else if (c.namespace() != null && clusterWide && query.namespace().isEmpty()) {
                missing = "namespace renders empty"; // never "every namespace"
            } else {
                ReferenceResolver.Resolution found;
                try {
                    found = resolver.resolve(query);
                } catch (RuntimeException e) {
                    explained.add(label + query.describe() + ": refused: " + e.getMessage());
                    return new Failed("reference " + ref.name() + " (" + query.describe() + "): " + e.getMessage(),
                            explained);
                }
                value = found == null ? null : found.value();
                String source = found == null ? "" : " (" + found.source() + ")";
                if (value instanceof JsonArray list && list.size() > MAX_SELECTED) {
                    explained.add(label + query.describe() + ": " + list.size() + " objects" + source);
                    return new Failed("reference " + ref.name() + " (" + query.describe() + ") selects " + list.size()
                            + " objects, more than " + MAX_SELECTED, explained);
                }
                if (value == null || value == JsonValue.NULL || value instanceof JsonArray list && list.isEmpty()) {
                    missing = query.describe() + (query.name() != null ? " not found" : " selects nothing") + source;
                    value = null;
                } else {
                    explained.add(label + query.describe() + (value instanceof JsonArray list
                            ? ": " + list.size() + " object(s)" : ": found") + source);
                }
            }
            if (missing != null) {
                explained.add(label + missing + ", onMissing: " + ref.onMissing());
                if (ref.onMissing() == OnMissing.skip) {
                    return new Skipped("reference " + ref.name() + ": " + missing + " (onMissing: skip)", explained);
                }
                if (ref.onMissing() == OnMissing.fail) {
                    return new Failed("reference " + ref.name() + ": " + missing, explained);
                }
                value = ref.labelSelector() != null ? JsonValue.EMPTY_JSON_ARRAY : JsonValue.EMPTY_JSON_OBJECT;
            }
            refs = JsonTree.with(refs, ref.name(), value);
        }
        JsonValue bound = object instanceof JsonObject o ? JsonTree.with(o, SYNTHETIC_REFS, refs) : object;
        return new Bound(bound, explained);
    }

    private static ReferenceQuery query(String rule, String ruleNamespace, boolean clusterWide, Compiled c,
                                        TemplateContext context, AdmissionRequest request) {
        Reference ref = c.reference();
        String namespace;
        if (!clusterWide) {
            namespace = ruleNamespace; // tenant isolation: a namespaced rule reads its own namespace only
        } else if (c.namespace() != null) {
            namespace = c.namespace().render(context);
        } else {
            namespace = ruleNamespace != null ? ruleNamespace : request.namespace();
        }
        String name = c.objectName() == null ? null : c.objectName().render(context);
        return new ReferenceQuery(rule, ref.name(), ref.apiVersion(), ref.kind(), namespace, name,
                ref.labelSelector(), clusterWide);
    }
}
