package io.remold.server.existing;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.remold.json.JsonTree;
import io.remold.rules.impact.ImpactScan;
import io.remold.rules.impact.ImpactSink;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.Verdict;
import io.remold.server.existing.ImpactStatus.Counts;
import io.remold.server.existing.ImpactStatus.Pass;
import io.remold.server.existing.ImpactStatus.Progress;
import io.remold.server.existing.ScannedKinds.Listed;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One walk of a rule's impact scan over the objects of its kinds, from where {@code from} says it is: paginated
 * LISTs (one page in memory at a time), each object paced and decided alone, the progress handed out after every
 * page. A rule that applies to existing objects walks the objects a second time once every verdict is recorded, and
 * hands each object it would still change to the {@link ExistingWrites}: an object changed already is now unchanged,
 * so none is written twice. Counts of a page count once its progress is out: a walk that stops (a newer version of
 * the rule, a lost lease) and is resumed from that progress counts every object exactly once.
 */
final class ScanRun {
    /** A list the scan needed failed: the resource, and the API server's status code and message. */
    static final class ListFailed extends Exception {
        final Listed kind;
        final int code;

        ListFailed(Listed kind, int code, String message) {
            super(message);
            this.kind = kind;
            this.code = code;
        }
    }

    private final ImpactScan scan;
    private final ImpactSink sink;
    private final ExistingWrites writes;
    private final List<Listed> kinds;
    private final String namespace;
    private final ApiClient client;
    private final ScanSettings settings;
    private final Pacer pacer;
    private final BooleanSupplier proceed;
    private final Consumer<ImpactStatus> progress;

    private Counts counts;
    private List<JsonObject> samples;

    /**
     * @param writes    where an Apply rule's changes go; null for a rule that only records its impact
     * @param namespace the namespace listed, or null for every namespace
     * @param proceed   asked before each object: false stops the walk (it returns null)
     * @param progress  told the status after each page
     */
    ScanRun(ImpactScan scan, ImpactSink sink, ExistingWrites writes, List<Listed> kinds, String namespace,
            ApiClient client, ScanSettings settings, Pacer pacer, BooleanSupplier proceed,
            Consumer<ImpactStatus> progress) {
        this.scan = scan;
        this.sink = sink;
        this.writes = writes;
        this.kinds = kinds;
        this.namespace = namespace;
        this.client = client;
        this.settings = settings;
        this.pacer = pacer;
        this.proceed = proceed;
        this.progress = progress;
    }

    /** Walks on from {@code from} (a Running status with its progress); the Complete status, or null if stopped. */
    ImpactStatus walk(ImpactStatus from) throws ListFailed, InterruptedException {
        counts = from.counts();
        samples = new ArrayList<>(from.samples());
        Progress at = from.progress();
        while (at != null) {
            Listed kind = kinds.get(at.kindIndex());
            Page page;
            try {
                page = list(kind, at.continueToken());
            } catch (Expired e) {
                // The continue token outlived the list's snapshot: the kind is listed again from its start, its
                // verdicts counted afresh; written objects are now unchanged, so their writes count as they were.
                if (at.pass() == Pass.Scan) {
                    counts = at.kindBase();
                    samples = new ArrayList<>(samples.subList(0, Math.min(at.kindSamples(), samples.size())));
                }
                at = new Progress(at.pass(), at.kindIndex(), at.kind(), null, counts, samples.size());
                continue;
            }
            for (JsonObject object : page.objects()) {
                if (!proceed.getAsBoolean()) {
                    return null;
                }
                pacer.next();
                if (at.pass() == Pass.Scan) {
                    record(object, scan.evaluate(object, sink));
                } else {
                    write(object);
                }
            }
            at = next(at, page.continueToken());
            var status = new ImpactStatus(from.observedGeneration(), from.requested(), ImpactStatus.State.Running,
                    from.message(), counts, from.applies(), samples, from.startedAt(), null, at);
            if (at != null) {
                if (!proceed.getAsBoolean()) {
                    return null;
                }
                progress.accept(status);
            }
        }
        return new ImpactStatus(from.observedGeneration(), from.requested(), ImpactStatus.State.Complete,
                from.message(), counts, from.applies(), samples, from.startedAt(), null, null);
    }

    /** Where the walk goes after a page: the next page, the next kind, the Apply pass, or null at the end. */
    private Progress next(Progress at, String continueToken) {
        if (continueToken != null) {
            return new Progress(at.pass(), at.kindIndex(), at.kind(), continueToken, at.kindBase(), at.kindSamples());
        }
        if (at.kindIndex() + 1 < kinds.size()) {
            return start(at.pass(), at.kindIndex() + 1);
        }
        return at.pass() == Pass.Scan && writes != null ? start(Pass.Apply, 0) : null;
    }

    private Progress start(Pass pass, int kindIndex) {
        return new Progress(pass, kindIndex, kinds.get(kindIndex).name(), null, counts, samples.size());
    }

    /** The first progress of a walk over {@code kinds} (not empty). */
    static Progress first(List<Listed> kinds) {
        return new Progress(Pass.Scan, 0, kinds.getFirst().name(), null, Counts.ZERO, 0);
    }

    private void record(JsonObject object, Verdict verdict) {
        Counts c = counts;
        counts = new Counts(c.evaluated() + 1, c.wouldChange() + (verdict instanceof Verdict.Changes ? 1 : 0),
                c.wouldRefuse() + (verdict instanceof Verdict.Refuses ? 1 : 0),
                c.failed() + (verdict instanceof Verdict.Fails ? 1 : 0), c.applied(), c.conflicts(), c.refused());
        if (verdict instanceof Verdict.Unchanged || verdictSamples() >= settings.samples()) {
            return;
        }
        JsonObjectBuilder sample = sample(object);
        switch (verdict) {
            case Verdict.Changes changes -> {
                sample.add("verdict", "Changes");
                String patch = changes.patch().toString();
                if (patch.length() > settings.patchBytes()) {
                    sample.add("patch", patch.substring(0, settings.patchBytes())).add("patchTruncated", true);
                } else {
                    sample.add("patch", patch);
                }
            }
            case Verdict.Refuses refuses -> sample.add("verdict", "Refuses").add("message", refuses.message());
            case Verdict.Fails fails -> sample.add("verdict", "Fails").add("message", fails.error());
            case Verdict.Unchanged unchanged -> throw new AssertionError(unchanged);
        }
        samples.add(sample.build());
    }

    /** Verdict samples so far (conflicts, sampled by the Apply pass, have their own bound). */
    private long verdictSamples() {
        return samples.stream().filter(s -> !"Conflict".equals(s.getString("verdict", ""))).count();
    }

    private void write(JsonObject object) {
        if (!(scan.evaluate(object, ImpactSink.NONE) instanceof Verdict.Changes changes)) {
            return;
        }
        Counts c = counts;
        switch (writes.apply(scan.family(), scan.rule(), object, changes.patch())) {
            case ExistingWrites.Outcome.Applied applied -> counts = new Counts(c.evaluated(), c.wouldChange(),
                    c.wouldRefuse(), c.failed(), c.applied() + 1, c.conflicts(), c.refused());
            case ExistingWrites.Outcome.Conflict conflict -> {
                counts = new Counts(c.evaluated(), c.wouldChange(), c.wouldRefuse(), c.failed(), c.applied(),
                        c.conflicts() + 1, c.refused());
                if (samples.size() - verdictSamples() < settings.samples()) {
                    samples.add(sample(object).add("verdict", "Conflict").add("manager", conflict.manager())
                            .add("field", conflict.field()).add("message", conflict.message()).build());
                }
            }
            case ExistingWrites.Outcome.Refused refused -> counts = new Counts(c.evaluated(), c.wouldChange(),
                    c.wouldRefuse(), c.failed(), c.applied(), c.conflicts(), c.refused() + 1);
            case ExistingWrites.Outcome.Skipped skipped -> {
            }
        }
    }

    private static JsonObjectBuilder sample(JsonObject object) {
        ObjectRef ref = ObjectRef.of(object);
        var sample = Json.createObjectBuilder().add("apiVersion", ref.apiVersion()).add("kind", ref.kind());
        if (!ref.namespace().isEmpty()) {
            sample.add("namespace", ref.namespace());
        }
        return sample.add("name", ref.name());
    }

    private record Page(List<JsonObject> objects, String continueToken) {
    }

    /** 410 Gone: the list's continue token expired. */
    private static final class Expired extends Exception {
        Expired() {
            super(null, null, false, false);
        }
    }

    private Page list(Listed kind, String continueToken) throws ListFailed, Expired {
        var options = new ListOptions();
        options.setLimit(settings.pageSize());
        options.setContinue(continueToken);
        var api = new DynamicKubernetesApi(kind.group(), kind.version(), kind.plural(), client);
        DynamicKubernetesListObject list;
        try {
            list = (namespace == null ? api.list(options) : api.list(namespace, options)).throwsApiException()
                    .getObject();
        } catch (ApiException e) {
            if (e.getCode() == 410 && continueToken != null) { // a first page cannot expire: no loop on it
                throw new Expired();
            }
            throw new ListFailed(kind, e.getCode(), e.getCode() == 0 ? String.valueOf(e.getMessage())
                    : "HTTP " + e.getCode());
        } catch (RuntimeException e) { // the API server cannot be reached, or answered what does not read
            throw new ListFailed(kind, 0, e.toString());
        }
        var objects = new ArrayList<JsonObject>(list.getItems().size());
        for (DynamicKubernetesObject item : list.getItems()) {
            objects.add(asStored(item.getRaw(), kind));
        }
        String next = list.getMetadata() == null ? null : list.getMetadata().getContinue();
        return new Page(objects, next == null || next.isEmpty() ? null : next);
    }

    /**
     * An item as the engine reads it: with the kind and apiVersion a list of built-in objects leaves out, and without
     * {@code metadata.managedFields} (the API server's bookkeeping, which no rule decides on).
     */
    private static JsonObject asStored(com.google.gson.JsonObject raw, Listed kind) {
        if (!raw.has("apiVersion")) {
            raw.addProperty("apiVersion", kind.apiVersion());
        }
        if (!raw.has("kind")) {
            raw.addProperty("kind", kind.kind());
        }
        if (raw.get("metadata") instanceof com.google.gson.JsonObject metadata) {
            metadata.remove("managedFields");
        }
        return JsonTree.parse(raw.toString().getBytes(StandardCharsets.UTF_8)).asJsonObject();
    }
}
