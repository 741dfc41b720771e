package dev.bellows.stream.internal;

/**
 * Watches a stream of characters, fed one at a time, for one fixed text, and says when it has
 * just been completed. Each pattern the readers use starts with a character that occurs nowhere
 * else in it ({@code <} of {@code </parameter>}, ...), so after a mismatch the match can only
 * restart at the character itself: no backtracking, no buffer, constant work per character.
 */
final class TextMatcher {

    private final String pattern;
    private int matched;

    TextMatcher(String pattern) {
        this.pattern = pattern;
        for (int i = 1; i < pattern.length(); i++) {
            if (pattern.charAt(i) == pattern.charAt(0)) {
                throw new IllegalArgumentException("the first character of " + pattern + " occurs again in it");
            }
        }
    }

    /** Takes one character; true when it completes the pattern (the match then starts over). */
    boolean accept(char c) {
        if (pattern.charAt(matched) == c) {
            if (++matched == pattern.length()) {
                matched = 0;
                return true;
            }
            return false;
        }
        matched = c == pattern.charAt(0) ? 1 : 0;
        return false;
    }

    /** How many characters of the pattern the characters so far end with. */
    int matched() {
        return matched;
    }

    int length() {
        return pattern.length();
    }

    void reset() {
        matched = 0;
    }
}
