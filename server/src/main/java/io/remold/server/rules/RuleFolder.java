package io.remold.server.rules;

import io.remold.api.ModRuleException;
import io.remold.engine.RuleCompilation;
import io.remold.rules.RuleDocuments;
import io.remold.server.files.ChangePoller;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Feeds the rule files (ModRules, Gatekeeper mutators, script rules, external data Providers) of one folder
 * ({@code *.yaml}, {@code *.yml}, {@code *.json}, not recursive) into a {@link RuleStore}. Each {@link #scan()}
 * reads only files that changed since the last one. A file that does not parse (or is not UTF-8) is reported and its
 * previous rules stay in force, and so does the previous version of a rule that no longer compiles; a deleted file
 * takes its rules with it. Rules without {@code metadata.namespace} apply in the
 * namespace of the object under review (the engine's reading of a namespace-less rule).
 */
public final class RuleFolder {
    static final List<String> SUFFIXES = List.of(".yaml", ".yml", ".json");
    private static final Logger LOG = Logger.getLogger(RuleFolder.class.getName());

    private final Path dir;
    private final RuleStore store;
    private final Map<Path, Loaded> loaded = new HashMap<>();

    /** What was last read from one file: its size and time stamp, and the keys its rules are stored under. */
    private record Loaded(long size, long modified, List<String> keys) {
    }

    public RuleFolder(Path dir, RuleStore store) {
        this.dir = dir;
        this.store = store;
    }

    public List<Path> files() {
        return ChangePoller.filesIn(dir, SUFFIXES);
    }

    /** Brings the store in line with the folder; returns how many files were (re)read. */
    public synchronized int scan() {
        List<Path> present = files();
        int[] read = {0};
        store.batch(sink -> {
            for (Path gone : new ArrayList<>(loaded.keySet())) {
                if (!present.contains(gone)) {
                    loaded.remove(gone).keys().forEach(sink::remove);
                    LOG.info("rules of " + gone + " removed");
                }
            }
            for (Path file : present) {
                if (load(file)) {
                    read[0]++;
                }
            }
        });
        return read[0];
    }

    private boolean load(Path file) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            return false; // deleted between listing and reading: the next scan removes it
        }
        Loaded previous = loaded.get(file);
        long modified = attributes.lastModifiedTime().toMillis();
        if (previous != null && previous.size() == attributes.size() && previous.modified() == modified) {
            return false;
        }
        List<RuleDocuments.Entry> entries;
        List<RuleDocuments.ProviderEntry> providers;
        try {
            var contents = RuleDocuments.readAll(utf8(Files.readAllBytes(file), file), file.toString());
            entries = contents.rules();
            providers = contents.providers();
        } catch (IOException e) {
            return false; // deleted between listing and reading: the next scan removes it
        } catch (ModRuleException e) {
            LOG.warning("cannot load " + file + " (its previous rules stay in force): " + e.getMessage());
            // Remember the broken version so it is not re-read on every scan.
            loaded.put(file, new Loaded(attributes.size(), modified, previous == null ? List.of() : previous.keys()));
            return true;
        }
        var keys = new ArrayList<String>();
        for (int i = 0; i < entries.size(); i++) {
            String key = dir.relativize(file) + "#" + i;
            switch (entries.get(i)) {
                case RuleDocuments.RuleEntry r -> {
                    RuleCompilation compilation = store.compile(r.rule());
                    if (compilation.ok()) {
                        store.put(key, r.rule(), r.controls());
                        keys.add(key);
                    } else if (previous != null && previous.keys().contains(key)) {
                        // Enforcement must not lapse because of a typo: the rule as it was stays in force.
                        LOG.warning("ModRule " + r.rule().id() + " from " + key + " does not compile (its previous "
                                + "version stays in force): " + compilation.errors());
                        keys.add(key);
                    } else {
                        LOG.warning("ModRule " + r.rule().id() + " from " + key + " is invalid and skipped: "
                                + compilation.errors());
                    }
                }
                case RuleDocuments.FamilyEntry<?> f -> {
                    if (put(key, f).isEmpty()) { // a refusal is logged by the store
                        keys.add(key);
                    }
                }
            }
        }
        for (int i = 0; i < providers.size(); i++) {
            String key = dir.relativize(file) + "#provider" + i;
            store.putProvider(key, providers.get(i).provider());
            keys.add(key);
        }
        if (previous != null) {
            var stale = new HashSet<>(previous.keys());
            keys.forEach(stale::remove);
            stale.forEach(store::remove);
        }
        loaded.put(file, new Loaded(attributes.size(), modified, List.copyOf(keys)));
        LOG.info("loaded " + (keys.size() - providers.size()) + " of " + entries.size() + " rules"
                + (providers.isEmpty() ? "" : " and " + providers.size() + " Providers") + " from " + file);
        return true;
    }

    /** A family's rule into the store (capturing the family's rule type). */
    private <R> Optional<String> put(String key, RuleDocuments.FamilyEntry<R> entry) {
        return store.put(key, entry.family(), entry.rule(), entry.controls());
    }

    /**
     * The text of a rule file; one byte that is not UTF-8 (even in a comment) is a parse error naming its line and
     * column, not a silent skip ({@code Files.readString} threw an IOException, read as "deleted meanwhile").
     */
    static String utf8(byte[] bytes, Path file) {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int at = in.position();
            int line = 1;
            int lineStart = 0;
            for (int i = 0; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                    lineStart = i + 1;
                }
            }
            throw new ModRuleException(file.toString(), 0, "", line, at - lineStart + 1,
                    String.format("not UTF-8: byte 0x%02X at offset %d", bytes[at] & 0xff, at));
        }
        return out.flip().toString();
    }
}
