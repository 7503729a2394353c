package io.remold.templating;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * {@link ExternalData#recording}: a view that remembers every answer and formats its {@code --explain} line only when
 * {@link #explained} is asked for, each line once. Its callers' views record into the same {@link Lines}.
 */
record RecordingExternalData(ExternalData data, Lines lines) implements ExternalData {
    /** The answers of one request's views, in the order they came, and the lines formatted so far. */
    static final class Lines {
        private record Asked(String provider, String key, Answer answer) {
        }

        private final List<Asked> asked = new ArrayList<>();
        private final List<String> formatted = new ArrayList<>();

        synchronized void add(String provider, Map<String, Answer> answers) {
            answers.forEach((key, answer) -> asked.add(new Asked(provider, key, answer)));
        }

        synchronized List<String> all() {
            for (int i = formatted.size(); i < asked.size(); i++) {
                Asked a = asked.get(i);
                formatted.add(ExternalData.explain(a.provider(), a.key(), a.answer()));
            }
            return List.copyOf(formatted);
        }
    }

    @Override
    public Map<String, Answer> fetch(String provider, Collection<String> keys) {
        Map<String, Answer> answers = data.fetch(provider, keys);
        lines.add(provider, answers);
        return answers;
    }

    @Override
    public ExternalData forCaller(String namespace, boolean clusterWide) {
        return new RecordingExternalData(data.forCaller(namespace, clusterWide), lines);
    }

    @Override
    public List<String> explained() {
        return lines.all();
    }
}
