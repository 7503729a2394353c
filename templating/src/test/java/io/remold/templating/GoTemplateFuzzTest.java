package io.remold.templating;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the translation of KubeMod's Go templates: it either refuses with {@link TemplateException} or yields
 * Remold syntax, which then compiles (or is refused the same way) and renders. Seeds: the Go templates of the
 * KubeMod corpus and of examples/kubemod-compat.
 */
class GoTemplateFuzzTest {

    @FuzzTest
    void translate(byte[] input) {
        String goTemplate = new String(input, StandardCharsets.UTF_8);
        try {
            String translated = Templates.translateGoTemplate(goTemplate);
            Templates.compileValue(translated).render(Fixtures.CONTEXT);
            Templates.compileText(translated).render(Fixtures.CONTEXT);
        } catch (TemplateException e) {
            // documented
        }
    }
}
