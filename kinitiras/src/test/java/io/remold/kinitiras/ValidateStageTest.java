package io.remold.kinitiras;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Rejection;
import io.remold.engine.RuleOutcome;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

/**
 * ClusterValidatePolicies as kinitiras's validatemanager runs them (validatemanager.go; its own tests are CUE, run by
 * the conformance part), with validators standing in for the template and cue forms.
 */
class ValidateStageTest {
    private static final JsonObject NAMESPACE = Cases.yaml(
            "{apiVersion: v1, kind: Namespace, metadata: {name: team, labels: {kinitiras.kcloudlabs.io/webhook: enabled}}}");
    private final List<PolicyInput> seen = new ArrayList<>();

    /** Refuses with {@code reason} (null: lets it pass), recording what it saw. */
    private Validator validator(String reason) {
        return input -> {
            seen.add(input);
            return Optional.ofNullable(reason);
        };
    }

    private static Policy policy(String name, List<ResourceSelector> selectors, TargetOperations operations,
                                 Validator... forms) {
        return new Policy(Policy.Kind.ClusterValidatePolicy, null, name, selectors, List.of(),
                List.of(new ValidateRule(operations, List.of(forms))), List.of());
    }

    private static Decision validate(AdmissionOperation operation, JsonValue object, JsonValue old,
                                     Policy... policies) {
        return validate(KinitirasOptions.DEFAULTS, operation, object, old, policies);
    }

    private static Decision validate(KinitirasOptions options, AdmissionOperation operation, JsonValue object,
                                     JsonValue old, Policy... policies) {
        var map = new TreeMap<String, Policy>();
        for (Policy p : policies) {
            map.put("k" + map.size(), p);
        }
        Engine.Builder builder = Engine.builder();
        new KinitirasFamily(HttpAnswers.REFUSED, options).compile(map).stage().ifPresent(builder::stage);
        return builder.build().validate(new AdmissionRequest(operation, "", object, old, JsonValue.NULL,
                JsonValue.NULL, false));
    }

    private static TargetOperations all() {
        return new TargetOperations(Set.of());
    }

    /** validatemanager.go: the first refusal is the answer; examples/deletens-cvp.yaml's reason. */
    @Test
    void policiesByNameAndTheFirstRefusalAnswers() {
        Decision decision = validate(AdmissionOperation.CREATE, NAMESPACE, JsonValue.NULL,
                policy("c", List.of(), all(), validator("third")),
                policy("b", List.of(), all(), validator(null), validator("operation rejected")),
                policy("a", List.of(), all(), validator(null)));
        assertThat(decision.rejections().stream().map(Rejection::toString).toList(),
                contains("ClusterValidatePolicy/b: \"operation rejected\""));
        assertThat(seen.size(), is(3));
        assertThat(decision.outcomes().stream().map(RuleOutcome::rule).toList(), contains("ClusterValidatePolicy/b"));
    }

    /** A Warn policy's refusal only warns: the policies after it still decide, and an enforced one refuses. */
    @Test
    void aWarnPolicysRefusalLetsTheNextPoliciesDecide() {
        var map = new TreeMap<String, Policy>();
        map.put("k0", policy("a", List.of(), all(), validator("only a warning")));
        map.put("k1", policy("b", List.of(), all(), validator("enforced")));
        Engine.Builder builder = Engine.builder().warned(Set.of("ClusterValidatePolicy/a"));
        new KinitirasFamily().compile(map).stage().ifPresent(builder::stage);
        Decision decision = builder.build().validate(new AdmissionRequest(AdmissionOperation.CREATE, "", NAMESPACE,
                JsonValue.NULL, JsonValue.NULL, JsonValue.NULL, false));
        assertThat(decision.rejections().stream().map(r -> r.family().name() + " " + r.rule() + " " + r.message())
                .toList(), contains("kinitiras policy ClusterValidatePolicy/a only a warning",
                "kinitiras policy ClusterValidatePolicy/b enforced"));
    }

    /** mutating.go decodeObj and validatemanager.go: on DELETE the object is the old one and there is no old one. */
    @Test
    void aDeleteIsValidatedAgainstTheOldObject() {
        Decision decision = validate(AdmissionOperation.DELETE, JsonValue.NULL, NAMESPACE,
                policy("p", List.of(), new TargetOperations(Set.of(AdmissionOperation.DELETE)),
                        validator("operation rejected")));
        assertThat(decision.rejections().size(), is(1));
        assertThat(seen.get(0).object(), is(NAMESPACE));
        assertThat(seen.get(0).oldObject(), is(JsonValue.NULL));
        assertThat(seen.get(0).operation(), is("DELETE"));
    }

    @Test
    void anUpdateSeesTheOldObject() {
        JsonObject old = Cases.yaml("{apiVersion: v1, kind: Namespace, metadata: {name: team}}");
        validate(AdmissionOperation.UPDATE, NAMESPACE, old, policy("p", List.of(), all(), validator(null)));
        assertThat(seen.get(0).oldObject(), is(old));
    }

    @Test
    void rulesNotTargetingTheOperationAndSelectorsThatDoNotHoldSkipThePolicy() {
        var selector = PolicyReader.selector(Cases.yaml("{apiVersion: v1, kind: Pod}"), "s");
        Decision decision = validate(AdmissionOperation.CREATE, NAMESPACE, JsonValue.NULL,
                policy("other-kind", List.of(selector), all(), validator("no")),
                policy("delete-only", List.of(), new TargetOperations(Set.of(AdmissionOperation.DELETE)),
                        validator("no")));
        assertThat(decision.rejections(), is(empty()));
        assertThat(seen, is(empty()));
    }

    /** validating.go answers an error when a policy cannot be evaluated: the request is refused (fails closed). */
    @Test
    void aValidationThatFailsRefuses() {
        Validator failing = input -> {
            throw new PolicyEvaluationException("cue: reference \"x\" not found");
        };
        Decision decision = validate(AdmissionOperation.CREATE, NAMESPACE, JsonValue.NULL,
                policy("p", List.of(), all(), failing), policy("q", List.of(), all(), validator("never reached")));
        assertThat(decision.rejections().stream().map(Rejection::toString).toList(),
                contains("ClusterValidatePolicy/p: \"cue: reference \"x\" not found\""));
        assertThat(decision.outcomes().get(0).error(), is("cue: reference \"x\" not found"));
        assertThat(seen, is(empty()));
    }

    static Stream<Arguments> webhookLabel() {
        JsonObject unlabelled = Cases.yaml("{apiVersion: v1, kind: Namespace, metadata: {name: team}}");
        return Stream.of(
                Arguments.of("the deletion of a labelled namespace is refused", true, AdmissionOperation.DELETE,
                        JsonValue.NULL, NAMESPACE, true),
                Arguments.of("the deletion of an unlabelled namespace is never sent", true, AdmissionOperation.DELETE,
                        JsonValue.NULL, unlabelled, false),
                Arguments.of("without the setting no label exempts a namespace", false, AdmissionOperation.DELETE,
                        JsonValue.NULL, unlabelled, true),
                Arguments.of("an UPDATE that labels the namespace is sent", true, AdmissionOperation.UPDATE,
                        NAMESPACE, unlabelled, true),
                Arguments.of("an UPDATE that takes the label off is sent", true, AdmissionOperation.UPDATE,
                        unlabelled, NAMESPACE, true),
                Arguments.of("an unlabelled CREATE is never sent", true, AdmissionOperation.CREATE, unlabelled,
                        JsonValue.NULL, false));
    }

    /**
     * With {@code --kinitiras-webhook-label}, kinitiras's webhook configuration's objectSelector (deploy/
     * webhook-configuration.yaml), as the API server evaluates it: the object or the old object carries the label.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource
    void webhookLabel(String name, boolean setting, AdmissionOperation operation, JsonValue object, JsonValue old,
                      boolean refused) {
        Decision decision = validate(new KinitirasOptions(false, setting), operation, object, old,
                policy("every-namespace", List.of(), all(), validator("operation rejected")));
        assertThat(decision.allowed(), is(!refused));
        assertThat(seen.size(), is(refused ? 1 : 0));
    }
}
