import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each part of a heap keeps alive: for each part (a list of class names), the bytes that become unreachable
 * from the GC roots when every instance of those classes is taken out of the heap graph, i.e. the part's retained
 * size. Used by benchmarks/cluster-memory.sh; runs as a source-file program with no build:
 *
 * <pre>java benchmarks/HeapParts.java DUMP.hprof "informer caches=io.kubernetes.client.informer.cache.Cache" ...</pre>
 *
 * <p>prints {@code reachable=N MiB}, then {@code PART=N MiB} per part (spaces in its name as underscores), then
 * {@code rest=N MiB} (what no part retains alone) and its five largest classes.
 *
 * <p>A class name ending in {@code .*} names a package and its subpackages. Sizes assume the recommended flags'
 * layout (compact object headers, compressed references), which a heap dump does not record; the printed total is
 * checked against {@code GC.class_histogram} by the caller. A part's objects that another part also reaches count
 * in neither.
 */
public final class HeapParts {
    private static final int OBJECT = 2;

    private final ByteBuffer dump;
    private final int idSize;
    private final Map<Long, String> strings = new HashMap<>();
    private final Map<Long, Long> classNameIds = new HashMap<>();
    private final Map<Long, long[]> classInfo = new HashMap<>(); // class id -> {super id, offset of field table}
    private final Map<Long, byte[]> layouts = new HashMap<>();
    private final List<Long> roots = new ArrayList<>();
    private final IdIndex index = new IdIndex(1 << 22);
    private long[] offsets = new long[1 << 20]; // per object: its sub-record's offset in the dump
    private int count;
    private int[] classOf;
    private int[] size;
    private int[] edgeStart;
    private int[] edges;

    private HeapParts(ByteBuffer dump) {
        this.dump = dump;
        int p = 0;
        while (dump.get(p) != 0) {
            p++;
        }
        this.idSize = dump.getInt(p + 1);
        dump.position(p + 1 + 4 + 8);
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: java HeapParts.java DUMP.hprof 'PART=CLASS[,CLASS...]'...");
            System.exit(2);
        }
        MappedByteBuffer dump;
        try (var channel = FileChannel.open(Path.of(args[0]))) {
            dump = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
        var heap = new HeapParts(dump);
        heap.read();
        heap.link();
        boolean[] all = heap.reach(new boolean[heap.count]);
        System.out.printf("reachable=%.1fMiB%n", heap.bytes(all) / 1048576.0);
        boolean[] rest = all.clone();
        for (int a = 1; a < args.length; a++) {
            String[] part = args[a].split("=", 2);
            boolean[] without = heap.reach(heap.instancesOf(part[1].split(",")));
            boolean[] retained = new boolean[heap.count];
            for (int i = 0; i < heap.count; i++) {
                retained[i] = all[i] && !without[i];
                rest[i] &= !retained[i];
            }
            System.out.printf("%s=%.1fMiB%n", part[0].replace(' ', '_'), heap.bytes(retained) / 1048576.0);
        }
        System.out.printf("rest=%.1fMiB%n", heap.bytes(rest) / 1048576.0);
        heap.largestClasses(rest, 5);
    }

    /** The classes whose instances take the most of {@code set}, as {@code rest CLASS=N MiB} lines. */
    private void largestClasses(boolean[] set, int limit) {
        long[] bytes = new long[classNames.size()];
        for (int i = 0; i < count; i++) {
            if (set[i]) {
                bytes[classOf[i]] += size[i];
            }
        }
        java.util.stream.IntStream.range(0, bytes.length).boxed()
                .sorted((a, b) -> Long.compare(bytes[b], bytes[a])).limit(limit)
                .forEach(c -> System.out.printf("rest %s=%.1fMiB%n", classNames.get(c), bytes[c] / 1048576.0));
    }

    // ---- reading

    private long id(int at) {
        return idSize == 8 ? dump.getLong(at) : dump.getInt(at) & 0xffffffffL;
    }

    private void read() {
        int p = dump.position();
        while (p < dump.limit()) {
            int tag = dump.get(p) & 0xff;
            long length = dump.getInt(p + 5) & 0xffffffffL;
            int body = p + 9;
            switch (tag) {
                case 0x01 -> {
                    byte[] utf8 = new byte[(int) length - idSize];
                    dump.get(body + idSize, utf8);
                    strings.put(id(body), new String(utf8, java.nio.charset.StandardCharsets.UTF_8));
                }
                case 0x02 -> classNameIds.put(id(body + 4), id(body + 4 + idSize + 4));
                case 0x0c, 0x1c -> readHeap(body, (int) (body + length));
                default -> { }
            }
            p = (int) (body + length);
        }
    }

    private void add(long id, int at) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
        }
        index.put(id, count);
        offsets[count++] = at;
    }

    private void readHeap(int p, int end) {
        while (p < end) {
            int sub = dump.get(p) & 0xff;
            int at = p;
            p++;
            switch (sub) {
                case 0xff, 0x05, 0x07 -> { roots.add(id(p)); p += idSize; }
                case 0x01 -> { roots.add(id(p)); p += 2 * idSize; }
                case 0x02, 0x03, 0x08 -> { roots.add(id(p)); p += idSize + 8; }
                case 0x04, 0x06 -> { roots.add(id(p)); p += idSize + 4; }
                case 0x20 -> {
                    long classId = id(p);
                    add(classId, at);
                    long superId = id(p + idSize + 4);
                    p += 7 * idSize + 4 + 4;
                    int constants = dump.getShort(p) & 0xffff;
                    p += 2;
                    for (int i = 0; i < constants; i++) {
                        p += 2;
                        p += 1 + valueSize(dump.get(p));
                    }
                    int statics = dump.getShort(p) & 0xffff;
                    p += 2;
                    for (int i = 0; i < statics; i++) {
                        p += idSize;
                        p += 1 + valueSize(dump.get(p));
                    }
                    classInfo.put(classId, new long[] {superId, p});
                    int fields = dump.getShort(p) & 0xffff;
                    p += 2 + fields * (idSize + 1);
                }
                case 0x21 -> {
                    add(id(p), at);
                    p += idSize + 4 + idSize;
                    p += 4 + dump.getInt(p);
                }
                case 0x22 -> {
                    add(id(p), at);
                    p += idSize + 4;
                    int n = dump.getInt(p);
                    p += 4 + idSize + n * idSize;
                }
                case 0x23 -> {
                    add(id(p), at);
                    p += idSize + 4;
                    int n = dump.getInt(p);
                    p += 4 + 1 + n * valueSize(dump.get(p + 4));
                }
                default -> throw new IllegalStateException("unknown heap dump sub-record " + sub + " at " + at);
            }
        }
    }

    private int valueSize(byte type) {
        return switch (type) {
            case OBJECT -> idSize;
            case 4, 8 -> 1;
            case 5, 9 -> 2;
            case 6, 10 -> 4;
            case 7, 11 -> 8;
            default -> throw new IllegalStateException("unknown value type " + type);
        };
    }

    /** Field types of a class's instances in dump order: the class's own fields, then its superclasses'. */
    private byte[] layout(long classId) {
        byte[] known = layouts.get(classId);
        if (known != null) {
            return known;
        }
        var types = new java.io.ByteArrayOutputStream();
        for (long c = classId; c != 0 && classInfo.containsKey(c); c = classInfo.get(c)[0]) {
            int p = (int) classInfo.get(c)[1];
            int fields = dump.getShort(p) & 0xffff;
            p += 2;
            for (int i = 0; i < fields; i++) {
                types.write(dump.get(p + idSize));
                p += idSize + 1;
            }
        }
        byte[] layout = types.toByteArray();
        layouts.put(classId, layout);
        return layout;
    }

    // ---- the graph

    private final List<String> classNames = new ArrayList<>();
    private final Map<String, Integer> classNumbers = new HashMap<>();

    private int classNumber(String name) {
        return classNumbers.computeIfAbsent(name, n -> { classNames.add(n); return classNames.size() - 1; });
    }

    private String className(long classId) {
        Long nameId = classNameIds.get(classId);
        String name = nameId == null ? null : strings.get(nameId);
        return name == null ? "?" : name.replace('/', '.');
    }

    /** Reference edges, class and estimated size of every object (compact headers, 4-byte references). */
    private void link() {
        classOf = new int[count];
        size = new int[count];
        edgeStart = new int[count + 1];
        edges = new int[count * 2];
        int e = 0;
        int javaLangClass = classNumber("java.lang.Class");
        for (int i = 0; i < count; i++) {
            edgeStart[i] = e;
            int p = (int) offsets[i];
            int sub = dump.get(p) & 0xff;
            p++;
            List<Long> refs = new ArrayList<>();
            switch (sub) {
                case 0x20 -> {
                    classOf[i] = javaLangClass;
                    size[i] = 112;
                    refs.add(id(p + idSize + 4)); // superclass
                    refs.add(id(p + 2 * idSize + 4)); // class loader
                    p += 7 * idSize + 8;
                    int constants = dump.getShort(p) & 0xffff;
                    p += 2;
                    for (int c = 0; c < constants; c++) {
                        p += 2;
                        byte type = dump.get(p);
                        if (type == OBJECT) {
                            refs.add(id(p + 1));
                        }
                        p += 1 + valueSize(type);
                    }
                    int statics = dump.getShort(p) & 0xffff;
                    p += 2;
                    for (int s = 0; s < statics; s++) {
                        byte type = dump.get(p + idSize);
                        if (type == OBJECT) {
                            refs.add(id(p + idSize + 1));
                        }
                        p += idSize + 1 + valueSize(type);
                    }
                }
                case 0x21 -> {
                    long classId = id(p + idSize + 4);
                    classOf[i] = classNumber(className(classId));
                    refs.add(classId);
                    p += 2 * idSize + 8;
                    int bytes = 8;
                    for (byte type : layout(classId)) {
                        if (type == OBJECT) {
                            refs.add(id(p));
                            bytes += 4;
                        } else {
                            bytes += valueSize(type);
                        }
                        p += valueSize(type);
                    }
                    size[i] = align(bytes);
                }
                case 0x22 -> {
                    p += idSize + 4;
                    int n = dump.getInt(p);
                    long arrayClass = id(p + 4);
                    classOf[i] = classNumber(className(arrayClass));
                    refs.add(arrayClass);
                    p += 4 + idSize;
                    for (int k = 0; k < n; k++) {
                        refs.add(id(p + k * idSize));
                    }
                    size[i] = align(12 + 4 * n);
                }
                case 0x23 -> {
                    p += idSize + 4;
                    int n = dump.getInt(p);
                    byte type = dump.get(p + 4);
                    classOf[i] = classNumber("[" + "??ZCFDBSIJ".charAt(type - 2));
                    size[i] = align(12 + n * valueSize(type));
                }
                default -> throw new IllegalStateException();
            }
            for (long ref : refs) {
                int target = ref == 0 ? -1 : index.get(ref);
                if (target >= 0) {
                    if (e == edges.length) {
                        edges = Arrays.copyOf(edges, e * 2);
                    }
                    edges[e++] = target;
                }
            }
        }
        edgeStart[count] = e;
    }

    private static int align(int bytes) {
        return (bytes + 7) & ~7;
    }

    private boolean[] instancesOf(String[] names) {
        boolean[] blockedClass = new boolean[classNames.size()];
        for (int c = 0; c < classNames.size(); c++) {
            String name = classNames.get(c);
            for (String wanted : names) {
                wanted = wanted.strip();
                if (wanted.endsWith(".*") ? name.startsWith(wanted.substring(0, wanted.length() - 1))
                        : name.equals(wanted)) {
                    blockedClass[c] = true;
                }
            }
        }
        boolean[] blocked = new boolean[count];
        for (int i = 0; i < count; i++) {
            blocked[i] = blockedClass[classOf[i]];
        }
        return blocked;
    }

    /** Objects reachable from the GC roots without passing through a blocked one. */
    private boolean[] reach(boolean[] blocked) {
        boolean[] seen = new boolean[count];
        int[] stack = new int[count];
        int top = 0;
        for (long root : roots) {
            int i = index.get(root);
            if (i >= 0 && !seen[i] && !blocked[i]) {
                seen[i] = true;
                stack[top++] = i;
            }
        }
        while (top > 0) {
            int i = stack[--top];
            for (int e = edgeStart[i]; e < edgeStart[i + 1]; e++) {
                int t = edges[e];
                if (!seen[t] && !blocked[t]) {
                    seen[t] = true;
                    stack[top++] = t;
                }
            }
        }
        return seen;
    }

    private long bytes(boolean[] set) {
        long total = 0;
        for (int i = 0; i < count; i++) {
            if (set[i]) {
                total += size[i];
            }
        }
        return total;
    }

    /** Object id to index, open addressing. */
    private static final class IdIndex {
        private long[] keys;
        private int[] values;
        private int used;

        IdIndex(int capacity) {
            keys = new long[capacity];
            values = new int[capacity];
        }

        void put(long key, int value) {
            if (used * 2 >= keys.length) {
                grow();
            }
            int slot = slot(key);
            if (keys[slot] == 0) {
                used++;
            }
            keys[slot] = key;
            values[slot] = value;
        }

        int get(long key) {
            int slot = slot(key);
            return keys[slot] == key ? values[slot] : -1;
        }

        private int slot(long key) {
            int mask = keys.length - 1;
            int slot = (int) (key * 0x9E3779B97F4A7C15L >>> 40) & mask;
            while (keys[slot] != 0 && keys[slot] != key) {
                slot = (slot + 1) & mask;
            }
            return slot;
        }

        private void grow() {
            long[] oldKeys = keys;
            int[] oldValues = values;
            keys = new long[oldKeys.length * 2];
            values = new int[oldKeys.length * 2];
            used = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != 0) {
                    put(oldKeys[i], oldValues[i]);
                }
            }
        }
    }
}
