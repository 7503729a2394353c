package io.remold.templating;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the Mustache compilers and rendering: an input is a template source, compiled as a patch value and as a
 * reject message and rendered against {@link Fixtures#CONTEXT}. Only {@link TemplateException} is documented.
 * Seeds: the values and messages of the KubeMod corpus (translated) and of examples/.
 */
class TemplateFuzzTest {

    @FuzzTest
    void compileAndRender(byte[] input) {
        String source = new String(input, StandardCharsets.UTF_8);
        try {
            Templates.compileValue(source).render(Fixtures.CONTEXT);
        } catch (TemplateException e) {
            // documented
        }
        try {
            Templates.compileText(source).render(Fixtures.CONTEXT);
        } catch (TemplateException e) {
            // documented
        }
    }
}
