package io.remold.kinitiras;

/**
 * The administrator's settings that give back kinitiras's own behaviour where Remold's default protects tenants
 * (both off by default, both unsafe on a cluster shared by tenants; docs/security.md says why).
 *
 * @param crossNamespaceOverrides an OverridePolicy applies to the namespaced objects its selectors select in every
 *                                namespace, as kinitiras's override manager applies it (default: its own namespace's
 *                                only)
 * @param webhookLabel            the policies see only the requests kinitiras's webhook configuration sends it: an
 *                                object or old object labelled {@value #WEBHOOK_LABEL}{@code : enabled} (default:
 *                                every request Remold's webhooks receive)
 */
public record KinitirasOptions(boolean crossNamespaceOverrides, boolean webhookLabel) {
    /** Remold's defaults: each namespace's OverridePolicies change its own objects, and no label exempts one. */
    public static final KinitirasOptions DEFAULTS = new KinitirasOptions(false, false);
    /** The label of kinitiras's webhook configuration's {@code objectSelector}. */
    public static final String WEBHOOK_LABEL = "kinitiras.kcloudlabs.io/webhook";
    /** The server option and {@code eval} flag of {@link #crossNamespaceOverrides}. */
    public static final String CROSS_NAMESPACE_OPTION = "kinitiras-cross-namespace-overrides";
    /** The server option and {@code eval} flag of {@link #webhookLabel}. */
    public static final String WEBHOOK_LABEL_OPTION = "kinitiras-webhook-label";
}
