package io.remold.server.kube;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.cache.Indexer;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The cluster mode's informers, one per resource however many parts of the server read it (client-go's shared
 * informers): rules, namespace and node references ({@link ClusterMode}), the kinds rules reference
 * ({@link ClusterReferences}) and the kinds scripts handle events of ({@link ClusterScriptEvents}) all acquire them
 * here, so a resource is listed, watched and cached once. An informer starts with its first {@link Hold} and stops
 * when its last one is released; each hold feeds its own handler, one event at a time.
 */
public final class Informers implements AutoCloseable {
    /** A resource: its API group (empty for the core group), version and plural. */
    record Resource(String group, String version, String plural) {
        @Override
        public String toString() {
            return (group.isEmpty() ? "" : group + "/") + version + " " + plural;
        }
    }

    /** For a hold that only reads the store. */
    private static final ResourceEventHandler<DynamicKubernetesObject> NO_HANDLER = new ResourceEventHandler<>() {
        @Override
        public void onAdd(DynamicKubernetesObject object) {
        }

        @Override
        public void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
        }

        @Override
        public void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
        }
    };

    /** One informer and the holds its events go to: the informer has one handler, which passes them on. */
    private final class Shared implements ResourceEventHandler<DynamicKubernetesObject> {
        private final Resource resource;
        private final List<Hold> holds = new CopyOnWriteArrayList<>();
        private final DynamicInformer informer;
        /** Set once stopped, so that the failures of its last watch are not reported. */
        private volatile boolean stopped;

        Shared(Resource resource) {
            this.resource = resource;
            this.informer = DynamicInformer.of(resource, clients, () -> stopped, this);
        }

        @Override
        public void onAdd(DynamicKubernetesObject object) {
            holds.forEach(hold -> hold.onAdd(object));
        }

        @Override
        public void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
            holds.forEach(hold -> hold.onUpdate(oldObject, newObject));
        }

        @Override
        public void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
            holds.forEach(hold -> hold.onDelete(object, finalStateUnknown));
        }
    }

    /**
     * A consumer's hold on the informer of one resource: its store, and its handler fed until the hold is released.
     * The handler's events never run concurrently with each other or with {@link #catchUp()}.
     */
    final class Hold implements ResourceEventHandler<DynamicKubernetesObject>, AutoCloseable {
        private final Shared shared;
        private final ResourceEventHandler<DynamicKubernetesObject> handler;
        private boolean released;

        private Hold(Shared shared, ResourceEventHandler<DynamicKubernetesObject> handler) {
            this.shared = shared;
            this.handler = handler;
        }

        Resource resource() {
            return shared.resource;
        }

        /** The informer's store: the resource's objects, kept to what rules read. */
        Indexer<DynamicKubernetesObject> store() {
            return shared.informer.informer().getIndexer();
        }

        boolean hasSynced() {
            return shared.informer.informer().hasSynced();
        }

        @Override
        public synchronized void onAdd(DynamicKubernetesObject object) {
            if (!released) {
                handler.onAdd(object);
            }
        }

        @Override
        public synchronized void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
            if (!released) {
                handler.onUpdate(oldObject, newObject);
            }
        }

        @Override
        public synchronized void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
            if (!released) {
                handler.onDelete(object, finalStateUnknown);
            }
        }

        /**
         * Hands the handler every object of the store, as added. Notifications run on their own thread and may lag
         * behind the store; each object is read from the store while no event is handled, so a deletion already
         * stored is never undone (its event, still queued, finds nothing left to remove). Handlers are idempotent:
         * an object added twice changes nothing the second time.
         */
        void catchUp() {
            for (String key : store().listKeys()) {
                synchronized (this) {
                    DynamicKubernetesObject current = store().getByKey(key);
                    if (current != null && !released) {
                        handler.onAdd(current);
                    }
                }
            }
        }

        /** Stops feeding the handler (after the event in progress, if any); the last hold stops the informer. */
        @Override
        public void close() {
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
            }
            release(this);
        }
    }

    private final KubeClients clients;
    /** Guarded by {@code this}. */
    private final Map<Resource, Shared> informers = new HashMap<>();
    private boolean closed;

    /** Informers on the server's connections; none runs until acquired. */
    public Informers(KubeClients clients) {
        this.clients = clients;
    }

    /** The connections the informers use, for the API calls of their consumers. */
    KubeClients clients() {
        return clients;
    }

    /**
     * Holds the informer of {@code resource}, starting it if no one holds it, and feeds {@code handler} its events;
     * an informer already running hands the handler every object of its store first.
     *
     * @throws IllegalStateException once closed
     */
    Hold acquire(Resource resource, ResourceEventHandler<DynamicKubernetesObject> handler) {
        Hold hold;
        boolean started;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("informers closed: " + resource + " not watched");
            }
            Shared shared = informers.get(resource);
            started = shared != null;
            if (!started) {
                shared = new Shared(resource);
                informers.put(resource, shared);
            }
            hold = new Hold(shared, handler);
            shared.holds.add(hold);
            if (!started) {
                shared.informer.start();
            }
        }
        if (started && handler != NO_HANDLER) {
            hold.catchUp();
        }
        return hold;
    }

    /** Holds the informer of {@code resource} to read its store only. */
    Hold acquire(Resource resource) {
        return acquire(resource, NO_HANDLER);
    }

    /** Informers running now, for tests. */
    synchronized int running() {
        return informers.size();
    }

    private synchronized void release(Hold hold) {
        Shared shared = hold.shared;
        shared.holds.remove(hold);
        if (shared.holds.isEmpty() && informers.remove(shared.resource, shared)) {
            shared.stopped = true;
            shared.informer.stop();
        }
    }

    /** Stops every informer; its holds feed nothing more. */
    @Override
    public synchronized void close() {
        closed = true;
        informers.values().forEach(shared -> {
            shared.stopped = true;
            shared.informer.stop();
        });
        informers.clear();
    }
}
