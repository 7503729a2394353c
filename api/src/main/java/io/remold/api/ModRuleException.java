package io.remold.api;

/**
 * A ModRule (or YAML document) that cannot be read. The message names the source, the document (1-based), the
 * field path such as {@code spec.match[2].matchFor} and, for YAML input, line and column (1-based; 0 = unknown).
 */
public final class ModRuleException extends RuntimeException {
    private final String source;
    private final int document;
    private final String field;
    private final int line;
    private final int column;
    private final String problem;

    public ModRuleException(String source, int document, String field, int line, int column, String problem) {
        super(format(source, document, field, line, column, problem));
        this.source = source;
        this.document = document;
        this.field = field;
        this.line = line;
        this.column = column;
        this.problem = problem;
    }

    private static String format(String source, int document, String field, int line, int column, String problem) {
        var sb = new StringBuilder(source == null ? "<input>" : source);
        if (document > 0) {
            sb.append(": document ").append(document);
        }
        if (line > 0) {
            sb.append(" (line ").append(line).append(", column ").append(column).append(')');
        }
        sb.append(": ");
        if (field != null && !field.isEmpty()) {
            sb.append(field).append(": ");
        }
        return sb.append(problem).toString();
    }

    public String source() { return source; }
    public int document() { return document; }
    /** Field path inside the document, empty for document-level problems. */
    public String field() { return field; }
    public int line() { return line; }
    public int column() { return column; }
    /** The problem alone, without source and position. */
    public String problem() { return problem; }
}
