package io.remold.cue;

import io.remold.cue.CueEvaluator.Owner;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The workers shared between the owners of policies, so that no tenant holds more than its share and the
 * administrator's cluster-wide policies, which run on every namespace's requests, always make progress. With W
 * workers:
 * <ul>
 * <li>the tenants' calls together hold at most max(1, W-1): one worker is kept for the administrator's calls. A
 * reservation rather than a priority alone, because a priority would still leave an administrator's call waiting
 * for a tenant's call to end, up to a whole evaluation's time (its own budget) behind hostile tenants;</li>
 * <li>one tenant's calls hold at most max(1, W-2): all the tenants' workers but one, so that another tenant's call
 * finds one free when there are two or more;</li>
 * <li>one policy's calls hold at most max(1, W-1), so that a slow cluster-wide policy, which every tenant's requests
 * may run, leaves a worker to the others (a tenant's policy is held to less by its tenant's share);</li>
 * <li>a worker that frees goes to the administrator's first waiting call whose policy may hold one more, else to the
 * tenant served least recently that may hold one more (round-robin by tenant), first come first served within
 * one owner: a tenant's flood waits behind one call of each other tenant, not the other way round;</li>
 * <li>waiting calls: at most {@link CueLimits#queue()} of the tenants' together and as many of the administrator's,
 * at most {@link CueLimits#queuePerTenant()} of one tenant's; beyond, a call fails at once. A waiting call gives up
 * at its own deadline.</li>
 * </ul>
 * One lock, held for a few map operations when a call takes a worker and when it gives it back.
 *
 * @param <R> what is shared: a worker slot
 */
final class FairShare<R> {
    private final int workers;
    private final int queue;
    private final int queuePerTenant;
    private final int tenantsShare;
    private final int tenantShare;
    private final int policyShare;
    private final ReentrantLock lock = new ReentrantLock();
    /** Most recently given back first. */
    private final Deque<R> free = new ArrayDeque<>();
    private final Account administrator = new Account(Owner.ADMINISTRATOR);
    /** The tenants holding a worker or waiting for one; no others, so that it stays small. */
    private final Map<Owner, Account> tenants = new HashMap<>();
    /** How many workers each policy holds, by id; absent when none. */
    private final Map<Long, Integer> policies = new HashMap<>();
    private int tenantsHolding;
    private int tenantsWaiting;
    /** Counts workers given and calls queued: orders tenants' turns and, on a tie, their first waiting call. */
    private long ticks;

    FairShare(Collection<R> resources, CueLimits limits) {
        this.workers = resources.size();
        this.queue = limits.queue();
        this.queuePerTenant = limits.queuePerTenant();
        this.tenantsShare = Math.max(1, workers - 1);
        this.tenantShare = Math.max(1, workers - 2);
        this.policyShare = Math.max(1, workers - 1);
        free.addAll(resources);
    }

    /**
     * A worker for a call of {@code policy} charged to {@code owner}: at once when its shares allow, else when its
     * turn comes, or a clear failure (the queue is full, or the deadline came first). Give it back with
     * {@link #release}.
     */
    R acquire(Owner owner, long policy, long deadlineNanos) throws CueException, InterruptedException {
        lock.lock();
        try {
            Account account = account(owner);
            if (!free.isEmpty() && mayHoldOneMore(account, policy)) {
                return grant(account, policy);
            }
            String full = queueFull(account);
            if (full != null) {
                String why = why(account, policy);
                forgetIfIdle(account);
                throw new CueException(why + "; " + full);
            }
            Waiter waiter = new Waiter(policy, ++ticks, lock.newCondition());
            account.waiting.addLast(waiter);
            if (account != administrator) {
                tenantsWaiting++;
            }
            try {
                long left = deadlineNanos - System.nanoTime();
                while (waiter.worker == null) {
                    if (left <= 0) {
                        withdraw(account, waiter);
                        throw new CueException("no CUE worker before the deadline: " + why(account, policy));
                    }
                    left = waiter.granted.awaitNanos(left);
                }
                return waiter.worker;
            } catch (InterruptedException e) {
                if (waiter.worker != null) {
                    release(owner, policy, waiter.worker);
                } else {
                    withdraw(account, waiter);
                }
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Gives back a worker {@link #acquire} gave, and hands it to the next call whose turn it is. */
    void release(Owner owner, long policy, R worker) {
        lock.lock();
        try {
            Account account = owner instanceof Owner.Tenant ? tenants.get(owner) : administrator;
            account.holding--;
            if (account != administrator) {
                tenantsHolding--;
            }
            policies.computeIfPresent(policy, (id, held) -> held == 1 ? null : held - 1);
            free.addFirst(worker);
            handOut();
            forgetIfIdle(account);
        } finally {
            lock.unlock();
        }
    }

    /** The calls waiting now (for tests: to know that a call is queued before what it waits for ends). */
    int waiting() {
        lock.lock();
        try {
            return administrator.waiting.size() + tenantsWaiting;
        } finally {
            lock.unlock();
        }
    }

    /** Gives free workers to the waiting calls whose turn it is, as long as one may hold one. */
    private void handOut() {
        while (!free.isEmpty() && (tenantsWaiting > 0 || !administrator.waiting.isEmpty())) {
            Account next = administrator;
            Waiter waiter = firstAllowed(administrator);
            if (waiter == null) {
                for (Account tenant : tenants.values()) {
                    Waiter candidate = firstAllowed(tenant);
                    if (candidate != null && (waiter == null || tenant.lastTurn < next.lastTurn
                            || tenant.lastTurn == next.lastTurn && candidate.arrival < waiter.arrival)) {
                        next = tenant;
                        waiter = candidate;
                    }
                }
            }
            if (waiter == null) {
                return;
            }
            next.waiting.remove(waiter);
            if (next != administrator) {
                tenantsWaiting--;
            }
            waiter.worker = grant(next, waiter.policy);
            waiter.granted.signal();
        }
    }

    /** The owner's first waiting call that may hold a worker now, or null. */
    private Waiter firstAllowed(Account account) {
        if (account.waiting.isEmpty() || !ownerMayHoldOneMore(account)) {
            return null;
        }
        for (Waiter waiter : account.waiting) {
            if (held(waiter.policy) < policyShare) {
                return waiter;
            }
        }
        return null;
    }

    private boolean mayHoldOneMore(Account account, long policy) {
        return ownerMayHoldOneMore(account) && held(policy) < policyShare;
    }

    private boolean ownerMayHoldOneMore(Account account) {
        return account == administrator || account.holding < tenantShare && tenantsHolding < tenantsShare;
    }

    private R grant(Account account, long policy) {
        account.holding++;
        if (account != administrator) {
            tenantsHolding++;
            account.lastTurn = ++ticks;
        }
        policies.merge(policy, 1, Integer::sum);
        return free.pollFirst();
    }

    private int held(long policy) {
        return policies.getOrDefault(policy, 0);
    }

    /** Why a call cannot have a worker now. */
    private String why(Account account, long policy) {
        if (account != administrator && account.holding >= tenantShare) {
            return "the evaluations of " + account.owner + " hold " + account.holding + " of the " + workers
                    + " CUE workers, the most one tenant may";
        }
        if (account != administrator && tenantsHolding >= tenantsShare && workers > 1) {
            return "tenants' evaluations hold " + tenantsHolding + " of the " + workers
                    + " CUE workers, and one is kept for cluster-wide policies";
        }
        if (held(policy) >= policyShare) {
            return "this policy's evaluations hold " + held(policy) + " of the " + workers
                    + " CUE workers, the most one policy may";
        }
        return "all " + workers + " CUE workers are busy";
    }

    /** Why a call may not wait, or null when it may. */
    private String queueFull(Account account) {
        if (account == administrator) {
            return account.waiting.size() < queue ? null
                    : queue + " of the administrator's evaluations wait already, the most that may";
        }
        if (account.waiting.size() >= queuePerTenant) {
            return queuePerTenant + " evaluations of " + account.owner + " wait already, the most one tenant's may";
        }
        return tenantsWaiting < queue ? null : queue + " evaluations of tenants wait already, the most that may";
    }

    private Account account(Owner owner) {
        return owner instanceof Owner.Tenant ? tenants.computeIfAbsent(owner, Account::new) : administrator;
    }

    private void withdraw(Account account, Waiter waiter) {
        account.waiting.remove(waiter);
        if (account != administrator) {
            tenantsWaiting--;
        }
        forgetIfIdle(account);
    }

    private void forgetIfIdle(Account account) {
        if (account != administrator && account.holding == 0 && account.waiting.isEmpty()) {
            tenants.remove(account.owner);
        }
    }

    /** An owner's workers held and calls waiting; {@code lastTurn} orders the tenants' round-robin. */
    private final class Account {
        final Owner owner;
        final Deque<Waiter> waiting = new ArrayDeque<>();
        int holding;
        long lastTurn;

        Account(Owner owner) {
            this.owner = owner;
        }
    }

    /** A call waiting for a worker; {@code worker} is set, under the lock, when it is handed one. */
    private final class Waiter {
        final long policy;
        final long arrival;
        final Condition granted;
        R worker;

        Waiter(long policy, long arrival, Condition granted) {
            this.policy = policy;
            this.arrival = arrival;
            this.granted = granted;
        }
    }
}
