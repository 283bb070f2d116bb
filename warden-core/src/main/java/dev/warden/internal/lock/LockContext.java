package dev.warden.internal.lock;

import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Owners;
import dev.warden.internal.base.Settings;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Namespace;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Waiting;
import java.util.concurrent.Executor;

/**
 * What the lock primitives of one client share, made once by {@link Locks}: its settings, clock and
 * owners, the script runner and blocking calls, waiting, its record of holds and hand-off rows, the
 * executor that completes the futures users see, and the threads on which a quorum lock runs its
 * blocking calls to this client's locks ({@link QuorumPart#calls()}), and the namespace of its
 * keys.
 */
record LockContext(
    Settings settings,
    Clock clock,
    Owners owners,
    Scripts scripts,
    Calls calls,
    Waiting waiting,
    Holds holds,
    HandOff.Rows rows,
    Executor callbacks,
    Executor partCalls,
    Namespace namespace) {}
