package dev.bellows.cli;

import dev.bellows.stream.Dialect;
import dev.bellows.stream.ModelProfile;
import dev.bellows.stream.StreamOptions;

/** {@code bellows run --dialect NAME|auto}: the stream options for the model's own format. */
final class DialectOption {

    private DialectOption() {
    }

    /**
     * The stream options of {@code --dialect}: the defaults when it is absent, the model's
     * profile for {@code auto}, else the named dialect. The agent's prompt teaches the
     * contract's {@code <tool>} tags, so with another dialect they are recognised too.
     *
     * @throws UsageException naming the flag and the known dialects
     */
    static StreamOptions streamOptions(String dialect, String model) throws UsageException {
        if (dialect == null) {
            return StreamOptions.defaults();
        }
        String name = dialect.strip();
        if (name.equalsIgnoreCase("auto")) {
            return ModelProfile.forModel(model).applyTo(StreamOptions.builder()).bellowsTagsToo(true).build();
        }
        try {
            return StreamOptions.builder().dialect(Dialect.named(name)).bellowsTagsToo(true).build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("--dialect: " + e.getMessage() + ", or auto (picked from --model)");
        }
    }
}
