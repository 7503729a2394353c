package io.remold.certgen;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1MutatingWebhook;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1ValidatingWebhook;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.kubernetes.client.util.PatchUtils;
import java.io.PrintStream;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One certgen run: makes sure the Secret holds a serving certificate that is valid for long enough, and that every
 * webhook trusts its CA. On renewal the previous CA stays in the bundle while it is valid, and the webhooks learn the
 * new bundle before the Secret changes: the API server trusts the new certificate before any server presents it.
 */
final class Certgen {
    static final String TLS_CRT = "tls.crt";
    static final String TLS_KEY = "tls.key";
    static final String CA_CRT = "ca.crt";

    private final CertgenOptions options;
    private final ApiClient client;
    private final CoreV1Api core;
    private final AdmissionregistrationV1Api admission;
    private final Clock clock;
    private final PrintStream log;

    Certgen(CertgenOptions options, ApiClient client, Clock clock, PrintStream log) {
        this.options = options;
        this.client = client;
        this.core = new CoreV1Api(client);
        this.admission = new AdmissionregistrationV1Api(client);
        this.clock = clock;
        this.log = log;
    }

    /** Does what is needed; throws {@link ApiFailure} naming the object and verb the API server refused. */
    void run() throws ApiFailure {
        Instant now = clock.instant();
        String secretRef = "Secret " + options.namespace() + "/" + options.secret();
        V1Secret secret = call("get", secretRef, () -> readSecret());
        Map<String, byte[]> data = secret == null || secret.getData() == null ? Map.of() : secret.getData();
        String renewal = renewalReason(data, now);
        if (renewal == null) {
            log.println(secretRef + ": current, valid until " + servingNotAfter(data));
            publishCaBundle(data.get(CA_CRT));
            return;
        }
        log.println(secretRef + ": " + renewal + "; issuing a new CA and serving certificate");
        Instant notAfter = now.plus(options.validity());
        var ca = Certificates.newCa("remold-ca@" + now.getEpochSecond(), now, notAfter);
        var serving = Certificates.newServing(ca, options.dnsNames(), now, notAfter);
        var trusted = new ArrayList<X509Certificate>();
        trusted.add(ca.certificate());
        // the previous CA still signs the certificate servers present until they reload the Secret
        Certificates.parseCertificates(data.get(CA_CRT)).stream()
                .filter(c -> c.getNotAfter().toInstant().isAfter(now)).forEach(trusted::add);
        var newData = new LinkedHashMap<String, byte[]>(data);
        newData.put(TLS_CRT, Certificates.pem(List.of(serving.certificate())));
        newData.put(TLS_KEY, Certificates.pem(List.of(serving.key())));
        newData.put(CA_CRT, Certificates.pem(trusted));
        publishCaBundle(newData.get(CA_CRT));
        if (secret == null) {
            var created = new V1Secret().apiVersion("v1").kind("Secret").type("kubernetes.io/tls")
                    .metadata(new V1ObjectMeta().name(options.secret()).namespace(options.namespace())
                            .labels(Map.of("app.kubernetes.io/name", "remold", "app.kubernetes.io/component", "certgen")))
                    .data(newData);
            call("create", secretRef, () -> core.createNamespacedSecret(options.namespace(), created).execute());
            log.println(secretRef + ": created, valid until " + notAfter);
        } else {
            // replace carries the resourceVersion read above: a concurrent writer makes this run fail, not overwrite
            call("update", secretRef, () -> core.replaceNamespacedSecret(options.secret(), options.namespace(),
                    secret.data(newData)).execute());
            log.println(secretRef + ": renewed, valid until " + notAfter + " (" + trusted.size() + " CA(s) trusted)");
        }
    }

    private V1Secret readSecret() throws ApiException {
        try {
            return core.readNamespacedSecret(options.secret(), options.namespace()).execute();
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return null;
            }
            throw e;
        }
    }

    /**
     * Why the Secret's certificate must be replaced, or null when it is good for longer than renew-before and no
     * renewal was asked for.
     */
    private String renewalReason(Map<String, byte[]> data, Instant now) {
        if (data.isEmpty()) {
            return "no certificate yet";
        }
        List<X509Certificate> serving = Certificates.parseCertificates(data.get(TLS_CRT));
        if (serving.isEmpty()) {
            return TLS_CRT + " holds no certificate";
        }
        X509Certificate certificate = serving.get(0);
        PrivateKey key = Certificates.parseKey(data.get(TLS_KEY));
        if (key == null || !Certificates.matches(key, certificate)) {
            return TLS_KEY + " is not the key of " + TLS_CRT;
        }
        List<String> names = Certificates.dnsNames(certificate);
        for (String name : options.dnsNames()) {
            if (!names.contains(name)) {
                return "the certificate does not name " + name;
            }
        }
        if (Certificates.parseCertificates(data.get(CA_CRT)).stream()
                .noneMatch(ca -> Certificates.signedBy(certificate, ca))) {
            return "no CA in " + CA_CRT + " signed the certificate";
        }
        Instant notAfter = certificate.getNotAfter().toInstant();
        if (!now.plus(options.renewBefore()).isBefore(notAfter)) {
            return "the certificate expires " + notAfter + ", within " + options.renewBefore();
        }
        return options.renewNow() ? "renewal requested (--renew-now)" : null;
    }

    private static Instant servingNotAfter(Map<String, byte[]> data) {
        return Certificates.parseCertificates(data.get(TLS_CRT)).get(0).getNotAfter().toInstant();
    }

    // ---- webhook configurations ----

    private record Webhook(String name, byte[] caBundle) {
    }

    private void publishCaBundle(byte[] bundle) throws ApiFailure {
        String mutating = options.mutatingWebhook();
        publish("MutatingWebhookConfiguration " + mutating, bundle,
                () -> Objects.requireNonNullElse(admission.readMutatingWebhookConfiguration(mutating).execute()
                        .getWebhooks(), List.<V1MutatingWebhook>of()).stream()
                        .map(w -> new Webhook(w.getName(), w.getClientConfig().getCaBundle())).toList(),
                patch -> PatchUtils.patch(V1MutatingWebhookConfiguration.class,
                        () -> admission.patchMutatingWebhookConfiguration(mutating, patch).buildCall(null),
                        V1Patch.PATCH_FORMAT_JSON_PATCH, client));
        String validating = options.validatingWebhook();
        publish("ValidatingWebhookConfiguration " + validating, bundle,
                () -> Objects.requireNonNullElse(admission.readValidatingWebhookConfiguration(validating).execute()
                        .getWebhooks(), List.<V1ValidatingWebhook>of()).stream()
                        .map(w -> new Webhook(w.getName(), w.getClientConfig().getCaBundle())).toList(),
                patch -> PatchUtils.patch(V1ValidatingWebhookConfiguration.class,
                        () -> admission.patchValidatingWebhookConfiguration(validating, patch).buildCall(null),
                        V1Patch.PATCH_FORMAT_JSON_PATCH, client));
    }

    private interface PatchCall {
        Object patch(V1Patch patch) throws ApiException;
    }

    private void publish(String ref, byte[] bundle, ApiCall<List<Webhook>> read, PatchCall patch) throws ApiFailure {
        List<Webhook> webhooks = call("get", ref, read);
        // a JSON patch that first tests each webhook's name, so a concurrent reordering fails instead of misplacing
        var operations = new JsonArray();
        int changed = 0;
        for (int i = 0; i < webhooks.size(); i++) {
            if (Arrays.equals(webhooks.get(i).caBundle(), bundle)) {
                continue;
            }
            changed++;
            operations.add(operation("test", "/webhooks/" + i + "/name", webhooks.get(i).name()));
            operations.add(operation("add", "/webhooks/" + i + "/clientConfig/caBundle",
                    Base64.getEncoder().encodeToString(bundle)));
        }
        if (changed == 0) {
            log.println(ref + ": caBundle current in " + webhooks.size() + " webhook(s)");
            return;
        }
        call("patch", ref, () -> patch.patch(new V1Patch(operations.toString())));
        log.println(ref + ": caBundle set in " + changed + " of " + webhooks.size() + " webhook(s)");
    }

    /** Deletes both webhook configurations; one already gone is no failure (a retried hook). */
    void deleteWebhooks() throws ApiFailure {
        String mutating = "MutatingWebhookConfiguration " + options.mutatingWebhook();
        String validating = "ValidatingWebhookConfiguration " + options.validatingWebhook();
        // the response body is not read: the API server answers with the deleted object or a Status
        deleted(mutating, call("delete", mutating, () -> absentIfNotFound(() -> client.execute(
                admission.deleteMutatingWebhookConfiguration(options.mutatingWebhook()).buildCall(null)))));
        deleted(validating, call("delete", validating, () -> absentIfNotFound(() -> client.execute(
                admission.deleteValidatingWebhookConfiguration(options.validatingWebhook()).buildCall(null)))));
    }

    private void deleted(String ref, Object status) {
        log.println(ref + (status == null ? ": already gone" : ": deleted"));
    }

    private static <T> T absentIfNotFound(ApiCall<T> call) throws ApiException {
        try {
            return call.call();
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return null;
            }
            throw e;
        }
    }

    private static JsonObject operation(String op, String path, String value) {
        var operation = new JsonObject();
        operation.addProperty("op", op);
        operation.addProperty("path", path);
        operation.addProperty("value", value);
        return operation;
    }

    // ---- errors ----

    interface ApiCall<T> {
        T call() throws ApiException;
    }

    /** The API server refused or failed a call; the message names the verb, the object and the reason. */
    static final class ApiFailure extends Exception {
        ApiFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static <T> T call(String verb, String ref, ApiCall<T> call) throws ApiFailure {
        try {
            return call.call();
        } catch (ApiException e) {
            String detail = statusMessage(e);
            String message = switch (e.getCode()) {
                case 0 -> "cannot reach the API server: " + (e.getCause() != null ? e.getCause() : e.getMessage());
                case 401 -> "401 Unauthorized: the API server did not accept the credentials (service account token "
                        + "or kubeconfig)";
                case 403 -> "403 Forbidden: " + detail + " (check the RBAC rules of certgen's service account)";
                case 404 -> "404 Not Found: " + detail + " (apply the installer's bundle first)";
                case 409 -> "409 Conflict: " + detail + " (changed concurrently; run again)";
                default -> e.getCode() + ": " + detail;
            };
            throw new ApiFailure("cannot " + verb + " " + ref + ": " + message, e);
        }
    }

    /** The message of a Kubernetes Status body, else the raw body. */
    private static String statusMessage(ApiException e) {
        String body = e.getResponseBody();
        if (body == null || body.isBlank()) {
            return Objects.requireNonNullElse(e.getMessage(), "no details");
        }
        try {
            var status = JsonParser.parseString(body).getAsJsonObject();
            if (status.has("message")) {
                return status.get("message").getAsString();
            }
        } catch (RuntimeException notJson) {
            // fall through to the raw body
        }
        return body.strip();
    }
}
