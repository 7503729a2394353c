package io.remold.server;

import io.remold.api.ModRuleException;
import io.remold.server.rules.RuleDocuments;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Feeds the rule files (ModRules, Gatekeeper mutators, script rules, external data Providers) of one folder
 * ({@code *.yaml}, {@code *.yml}, {@code *.json}, not recursive) into a {@link RuleStore}. Each {@link #scan()}
 * reads only files that changed since the last one. A file that does not parse is reported and its previous rules
 * stay in force; a deleted file takes its rules with it. Rules without {@code metadata.namespace} apply in the
 * namespace of the object under review (the engine's reading of a namespace-less rule).
 */
final class RuleFolder {
    static final List<String> SUFFIXES = List.of(".yaml", ".yml", ".json");
    private static final Logger LOG = Logger.getLogger(RuleFolder.class.getName());

    private final Path dir;
    private final RuleStore store;
    private final Map<Path, Loaded> loaded = new HashMap<>();

    /** What was last read from one file: its size and time stamp, and the keys its rules are stored under. */
    private record Loaded(long size, long modified, List<String> keys) {
    }

    RuleFolder(Path dir, RuleStore store) {
        this.dir = dir;
        this.store = store;
    }

    List<Path> files() {
        return ChangePoller.filesIn(dir, SUFFIXES);
    }

    /** Brings the store in line with the folder; returns how many files were (re)read. */
    synchronized int scan() {
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
            var contents = RuleDocuments.readAll(Files.readString(file, StandardCharsets.UTF_8), file.toString());
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
                    if (store.put(key, r.rule()).ok()) {
                        keys.add(key);
                    }
                }
                case RuleDocuments.MutatorEntry m -> {
                    store.putMutator(key, m.mutator());
                    keys.add(key);
                }
                case RuleDocuments.ScriptEntry s -> {
                    store.putScript(key, s.rule());
                    keys.add(key);
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
}
