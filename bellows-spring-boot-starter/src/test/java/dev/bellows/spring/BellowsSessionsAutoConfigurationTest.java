package dev.bellows.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.Session;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.StoredSession;
import dev.bellows.provider.Provider;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;

/** The session store bean: there with bellows-sessions-sqlite, stored where the property says. */
class BellowsSessionsAutoConfigurationTest {

    @TempDir
    Path directory;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            // without the machine's environment variables: an OPENAI_API_KEY or BELLOWS_MODEL there
            // would change what these tests see (Spring reads them as properties)
            .withInitializer(context -> context.getEnvironment().getPropertySources()
                    .remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME))
            .withConfiguration(AutoConfigurations.of(BellowsAutoConfiguration.class, BellowsSessionsAutoConfiguration.class))
            .withPropertyValues("bellows.base-url=http://127.0.0.1:1/v1", "bellows.model=mock");

    @Test
    void aConversationStoredThroughTheBeanIsThereInTheNextApplication() {
        String completion = "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"391\"}}</tool>";
        runner.withPropertyValues("bellows.sessions-directory=" + directory)
                .withBean(Provider.class, () -> new ScriptedProvider(MockScript.of(MockTurn.content(completion))))
                .run(context -> {
                    SessionStore store = context.getBean(SessionStore.class);
                    assertThat(store).isInstanceOf(SqliteSessionStore.class);
                    assertThat(((SqliteSessionStore) store).directory()).isEqualTo(directory);
                    try (StoredSession stored = store.open("math")) {
                        Session math = new Session(ConversationMemory.builder().store(stored).build(), stored);
                        AgentResult result = context.getBean(Agent.class).run("What is 17 * 23?", math).await();
                        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "391"));
                    }
                });
        // The first context closed its store; a new one over the same directory reads the turn back.
        runner.withPropertyValues("bellows.sessions-directory=" + directory).run(context -> {
            SessionStore store = context.getBean(SessionStore.class);
            assertThat(store.turns("math")).hasValueSatisfying(turns -> assertThat(turns).hasSize(1));
        });
    }

    @Test
    void withoutTheSqliteModuleThereIsNoStore() {
        runner.withClassLoader(new FilteredClassLoader(SqliteSessionStore.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SessionStore.class));
    }

    @Test
    void aStoreOfTheApplicationReplacesIt() {
        try (SqliteSessionStore mine = SqliteSessionStore.open(directory.resolve("mine"))) {
            runner.withBean(SessionStore.class, () -> mine)
                    .run(context -> assertThat(context.getBean(SessionStore.class)).isSameAs(mine));
        }
    }
}
