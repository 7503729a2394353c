/**
 * kinitiras's {@code template} overriders and validate templates, run natively: each template is compiled once
 * into an immutable object that gives, for a request, what kinitiras's CUE rendered from the same template gives
 * (its quirks included; see docs/kinitiras-templates.md).
 */
package io.remold.kinitiras.template;
