package io.remold.templating;

/** A compiled plain-text template (e.g. a reject message). Thread-safe. */
public interface TextTemplate {
    String render(TemplateContext context);
}
