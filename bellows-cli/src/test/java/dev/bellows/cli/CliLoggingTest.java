package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** The command line's logging setup: the library's warnings off by default, the user's choice kept. */
@Isolated
class CliLoggingTest {

    private final Logger library = Logger.getLogger(CliLogging.LIBRARY);
    private Level before;
    private String configFile;

    @BeforeEach
    void remember() {
        before = library.getLevel();
        configFile = System.getProperty("java.util.logging.config.file");
        System.clearProperty("java.util.logging.config.file");
        library.setLevel(null);
    }

    @AfterEach
    void restore() {
        library.setLevel(before);
        if (configFile == null) {
            System.clearProperty("java.util.logging.config.file");
        } else {
            System.setProperty("java.util.logging.config.file", configFile);
        }
    }

    @Test
    void the_library_is_silent_by_default_down_to_its_deepest_logger() {
        assertThat(CliLogging.configure(false)).isTrue();

        assertThat(Logger.getLogger("dev.bellows.agent.RunHandle").isLoggable(Level.WARNING)).isFalse();
        assertThat(Logger.getLogger("dev.bellows.agent.LoopEnds").isLoggable(Level.SEVERE)).isFalse();
    }

    @Test
    void debug_keeps_the_warnings() {
        assertThat(CliLogging.configure(true)).isFalse();

        assertThat(Logger.getLogger("dev.bellows.agent.RunHandle").isLoggable(Level.WARNING)).isTrue();
    }

    @Test
    void a_users_logging_configuration_is_left_as_it_says() {
        System.setProperty("java.util.logging.config.file", "logging.properties");

        assertThat(CliLogging.configure(false)).isFalse();

        assertThat(library.getLevel()).isNull();
    }
}
