package io.remold.kinitiras;

import io.remold.engine.Family;
import io.remold.engine.RuleFamily;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * kinitiras's policies ({@code policy.kcloudlabs.io/v1alpha1}) as a rule family: one stage that overrides (the two
 * override kinds) and validates (ClusterValidatePolicy). Its one runtime, the CUE workers, is the process's (see
 * {@link Forms#shared()}), so that every reader of policies shares the compiled CUE.
 */
public final class KinitirasFamily implements Family<Policy> {
    /** How outcomes, warnings and audit annotations name a kinitiras policy ({@code Kind/[namespace/]name}). */
    public static final RuleFamily FAMILY = new RuleFamily("kinitiras policy", "overridden by kinitiras policy(ies)",
            "overridden-by");
    /** The Ready condition's reason of a policy in force. */
    public static final String READY = "policy compiled";
    private static final List<Resource> RESOURCES = List.of(
            resource(Policy.Kind.OverridePolicy),
            resource(Policy.Kind.ClusterOverridePolicy),
            resource(Policy.Kind.ClusterValidatePolicy));
    /**
     * kinitiras lists policies from a map, in no fixed order, and sorts override rules by policy name; Remold runs
     * the cluster policies by name, then the namespaced ones by name (one namespace's only unless the administrator
     * lifts that; a name in several namespaces then runs in namespace order), validations by name.
     */
    private static final Comparator<Policy> ORDER = Comparator.comparing((Policy p) -> !p.clusterWide())
            .thenComparing(Policy::name).thenComparing(p -> p.namespace() == null ? "" : p.namespace());

    private final Forms forms;
    private final HttpAnswers httpAnswers;
    private final KinitirasOptions options;

    /**
     * The family on the process's shared CUE workers (started when the first policy with CUE is read), refusing
     * every http reference, with Remold's defaults.
     */
    public KinitirasFamily() {
        this(HttpAnswers.REFUSED, KinitirasOptions.DEFAULTS);
    }

    /**
     * As {@link #KinitirasFamily()}, the policies' http references answered by {@code httpAnswers}, run with the
     * administrator's {@code options}.
     */
    public KinitirasFamily(HttpAnswers httpAnswers, KinitirasOptions options) {
        this(Forms.shared(), httpAnswers, options);
    }

    KinitirasFamily(Forms forms, HttpAnswers httpAnswers, KinitirasOptions options) {
        this.forms = forms;
        this.httpAnswers = httpAnswers;
        this.options = options;
    }

    private static Resource resource(Policy.Kind kind) {
        return new Resource(PolicyReader.GROUP, "v1alpha1", kind.name(), kind.plural());
    }

    @Override
    public RuleFamily family() {
        return FAMILY;
    }

    @Override
    public List<Resource> resources() {
        return RESOURCES;
    }

    @Override
    public String readyReason() {
        return READY;
    }

    @Override
    public boolean owns(JsonObject manifest) {
        return PolicyReader.owns(manifest);
    }

    @Override
    public Policy parse(JsonObject manifest) {
        return PolicyReader.read(manifest, forms);
    }

    /** kinitiras's policy webhook: each rule with a template gets its {@code renderedCue} ({@link RenderedCues}). */
    @Override
    public List<JsonObject> admissionPatch(JsonObject manifest, JsonObject old) {
        return RenderedCues.patch(manifest, old);
    }

    @Override
    public String id(Policy rule) {
        return rule.id();
    }

    /** ClusterValidatePolicies refuse in every namespace; an override that fails refuses in the mutating webhook. */
    @Override
    public Optional<String> refusesIn(Policy rule) {
        return rule.kind() == Policy.Kind.ClusterValidatePolicy ? Optional.of("") : Optional.empty();
    }

    @Override
    public Compiled compile(SortedMap<String, Policy> rules) {
        var overrides = new ArrayList<Policy>();
        var validations = new ArrayList<Policy>();
        var names = new HashSet<String>();
        var disabled = new TreeMap<String, String>();
        rules.forEach((key, policy) -> {
            names.add(policy.id());
            Optional<String> unreachable = unreachable(policy);
            if (unreachable.isPresent()) {
                disabled.put(key, unreachable.get());
                return;
            }
            (policy.kind() == Policy.Kind.ClusterValidatePolicy ? validations : overrides).add(policy);
        });
        overrides.sort(ORDER);
        validations.sort(ORDER);
        var stage = new KinitirasStage(overrides, validations, httpAnswers, options);
        return new Compiled(stage.ruleCount() == 0 ? Optional.empty() : Optional.of(stage), disabled, Set.of(),
                Optional.empty(), stage.ruleCount(), names);
    }

    /**
     * Why the policy is not in force: an http reference whose URL (written, or its part before a key) is under no
     * prefix the owner allows, so that the policy could only fail. A URL that only a request can check is checked
     * there.
     */
    private Optional<String> unreachable(Policy policy) {
        for (FetchedReference reference : policy.references()) {
            if (reference.from().equals(FetchedReference.HTTP)
                    && reference.target().get("url") instanceof JsonString url) {
                Optional<String> refusal = httpAnswers.allowed().refusalOfWritten(url.getString());
                if (refusal.isPresent()) {
                    return Optional.of(reference.field() + ".url: " + refusal.get());
                }
            }
        }
        return Optional.empty();
    }

    /** Its resourceSelectors' kinds; without selectors a policy decides every object. */
    @Override
    public Optional<Set<TargetKind>> targetKinds(Policy policy) {
        if (policy.selectors().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(policy.selectors().stream()
                .map(s -> new TargetKind(TargetKind.groupOf(s.apiVersion()), s.kind(), null))
                .collect(Collectors.toUnmodifiableSet()));
    }

    /** The kinds of the policy's {@code k8s} references; a cluster policy reads them in every namespace. */
    @Override
    public Set<ReferencedKind> referencedKinds(Policy policy) {
        var kinds = new HashSet<ReferencedKind>();
        for (FetchedReference reference : policy.references()) {
            String apiVersion = reference.target().getString("apiVersion", "");
            String kind = reference.target().getString("kind", "");
            if (reference.from().equals(FetchedReference.K8S) && !apiVersion.isEmpty() && !kind.isEmpty()) {
                kinds.add(new ReferencedKind(apiVersion, kind, policy.clusterWide()));
            }
        }
        return kinds;
    }
}
