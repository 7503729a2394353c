package io.remold.server.existing;

/**
 * Keeps a scan under a number of objects per second: {@link #next} sleeps while the objects decided so far are
 * ahead of the rate since the pacer started.
 */
final class Pacer {
    private final double perSecond;
    private final long start = System.nanoTime();
    private long objects;

    Pacer(double perSecond) {
        this.perSecond = perSecond;
    }

    void next() throws InterruptedException {
        long due = start + (long) (objects++ * 1e9 / perSecond);
        long ahead = due - System.nanoTime();
        if (ahead > 0) {
            Thread.sleep(ahead / 1_000_000, (int) (ahead % 1_000_000));
        }
    }
}
