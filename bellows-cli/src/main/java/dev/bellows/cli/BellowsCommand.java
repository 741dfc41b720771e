package dev.bellows.cli;

/** Placeholder entry point until the parse command lands in this change. */
public final class BellowsCommand {
    public static void main(String[] args) {
    }
}
