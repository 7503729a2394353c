package io.remold.server.kube;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The informer of one resource's objects as dynamic objects, kept to what rules read ({@link Manifests#kept}), with
 * watch errors logged until {@code stopped}. Only {@link Informers} makes them, one per resource. One factory per
 * informer: a factory keeps one informer per Java type, and every informer here holds the same type.
 */
record DynamicInformer(SharedInformerFactory factory, SharedIndexInformer<DynamicKubernetesObject> informer) {

    /**
     * The informer of {@code resource}, feeding {@code handler}, not started yet. No periodic resync: nothing here
     * needs one (a failed status write is retried by the {@link WriteQueue}).
     */
    static DynamicInformer of(Informers.Resource resource, KubeClients clients, BooleanSupplier stopped,
                              ResourceEventHandler<DynamicKubernetesObject> handler) {
        var factory = new SharedInformerFactory(clients.watches());
        var listerWatcher = new DynamicListerWatcher(resource.group(), resource.version(), resource.plural(),
                clients.requests(), clients.watches());
        SharedIndexInformer<DynamicKubernetesObject> informer = factory.sharedIndexInformerFor(listerWatcher,
                DynamicKubernetesObject.class, 0, new WatchErrors(resource.toString(), stopped)::report);
        informer.setTransform(Manifests::kept);
        informer.addEventHandler(handler);
        return new DynamicInformer(factory, informer);
    }

    void start() {
        factory.startAllRegisteredInformers();
    }

    void stop() {
        factory.stopAllRegisteredInformers();
    }

    /**
     * Stops {@code background} and waits for the task it runs: a task starting informers could otherwise start one
     * after the caller has stopped them all.
     */
    static void stopBackground(ExecutorService background) {
        background.shutdownNow();
        try {
            background.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
