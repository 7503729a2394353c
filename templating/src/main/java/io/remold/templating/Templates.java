package io.remold.templating;

/** Entry point: compiles Remold templates and translates KubeMod Go templates. */
public final class Templates {
    private Templates() {
    }

    /** A patch value: a YAML document with Mustache tags. Values from the context never add YAML structure. */
    public static ValueTemplate compileValue(String source) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** A plain-text template (rejectMessage). */
    public static TextTemplate compileText(String source) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Translates a KubeMod Go template (api.kubemod.io rules) into Remold's syntax, or refuses it naming the construct. */
    public static String translateGoTemplate(String goTemplate) {
        throw new UnsupportedOperationException("not implemented yet");
    }
}
