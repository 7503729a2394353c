package io.remold.server.kube;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * An informer of one resource's objects as dynamic objects, kept to what rules read ({@link Manifests#kept}), with
 * watch errors logged until {@code closed}. One factory per resource: a factory keeps one informer per Java type,
 * and every informer here holds the same type.
 */
record DynamicInformer(SharedInformerFactory factory, SharedIndexInformer<DynamicKubernetesObject> informer) {

    /** The informer of {@code group/version plural}, not started yet: add handlers, then {@link #start()}. */
    static DynamicInformer of(String group, String version, String plural, ApiClient requestClient,
                              ApiClient watchClient, long resyncMillis, BooleanSupplier closed) {
        var factory = new SharedInformerFactory(watchClient);
        String resource = (group.isEmpty() ? "" : group + "/") + version + " " + plural;
        var listerWatcher = new DynamicListerWatcher(group, version, plural, requestClient, watchClient);
        SharedIndexInformer<DynamicKubernetesObject> informer = factory.sharedIndexInformerFor(listerWatcher,
                DynamicKubernetesObject.class, resyncMillis, new WatchErrors(resource, closed)::report);
        informer.setTransform(Manifests::kept);
        return new DynamicInformer(factory, informer);
    }

    DynamicInformer handledBy(ResourceEventHandler<DynamicKubernetesObject> handler) {
        informer.addEventHandler(handler);
        return this;
    }

    DynamicInformer start() {
        factory.startAllRegisteredInformers();
        return this;
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
