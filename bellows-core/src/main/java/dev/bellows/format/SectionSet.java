package dev.bellows.format;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The sections registered with a format, as one immutable value: a format swaps in a new one
 * on each registration, so a parse running at the same time sees either the old set or the new
 * one, never half of it.
 */
record SectionSet(List<TextSection> sections, Set<String> keys) {

    static final SectionSet EMPTY = new SectionSet(List.of(), Set.of());

    SectionSet {
        sections = List.copyOf(sections);
        keys = Set.copyOf(keys);
    }

    /** This set plus {@code section}, unless a section of that name (in any case) is already in it. */
    SectionSet with(TextSection section) {
        String key = SectionNames.key(section.name());
        if (keys.contains(key)) {
            return this;
        }
        List<TextSection> moreSections = new ArrayList<>(sections);
        moreSections.add(section);
        Set<String> moreKeys = new HashSet<>(keys);
        moreKeys.add(key);
        return new SectionSet(moreSections, moreKeys);
    }

    /**
     * Whether a section of this (lower-case) name delimits a section when parsing: any valid
     * name when none are registered, otherwise only the registered ones, so that a model's
     * own headings or tags inside a section stay part of its content.
     */
    boolean counts(String key) {
        return keys.isEmpty() || keys.contains(key);
    }

    boolean isEmpty() {
        return sections.isEmpty();
    }
}
