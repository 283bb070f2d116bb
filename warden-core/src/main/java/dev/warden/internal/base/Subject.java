package dev.warden.internal.base;

import dev.warden.ObjectType;

/**
 * What an event or an activity entry is about: an object's type and its name as the user gave it.
 * Made once per object, so that events allocate nothing for it.
 */
public record Subject(ObjectType type, String name) {}
