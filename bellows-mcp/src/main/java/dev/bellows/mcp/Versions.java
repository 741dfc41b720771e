package dev.bellows.mcp;

/** The version Bellows reports to servers in {@code clientInfo}. */
final class Versions {

    private Versions() {
    }

    static String bellows() {
        String version = Versions.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
