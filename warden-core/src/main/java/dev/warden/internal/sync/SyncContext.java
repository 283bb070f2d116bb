package dev.warden.internal.sync;

import dev.warden.internal.base.Settings;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Waiting;

/** What the synchronizers of one client share, made once by {@link Synchronizers}. */
record SyncContext(Settings settings, Scripts scripts, Calls calls, Waiting waiting) {}
