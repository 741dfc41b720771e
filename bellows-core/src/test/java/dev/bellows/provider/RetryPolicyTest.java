package dev.bellows.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.random.RandomGenerator;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    static final RandomGenerator NO_JITTER = () -> 0L;
    static final RandomGenerator MAX_JITTER = () -> -1L;

    private static ProviderException failure(Duration retryAfter) {
        return new ProviderException(ProviderException.Kind.RATE_LIMITED, "HTTP 429", 429, retryAfter, null);
    }

    @Test
    void defaultsAreTheSpecs() {
        assertThat(RetryPolicy.defaults()).isEqualTo(new RetryPolicy(3, Duration.ofMillis(500), Duration.ofSeconds(60)));
    }

    @Test
    void exponentialBackoffFrom500Ms() {
        RetryPolicy policy = RetryPolicy.defaults();
        assertThat(policy.delayBefore(1, failure(null), NO_JITTER)).isEqualTo(Duration.ofMillis(500));
        assertThat(policy.delayBefore(2, failure(null), NO_JITTER)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.delayBefore(3, failure(null), NO_JITTER)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.delayBefore(4, failure(null), NO_JITTER)).isEqualTo(Duration.ofSeconds(4));
    }

    @Test
    void jitterAddsUpToAQuarter() {
        Duration delay = RetryPolicy.defaults().delayBefore(2, failure(null), MAX_JITTER);
        assertThat(delay).isGreaterThan(Duration.ofSeconds(1)).isLessThan(Duration.ofMillis(1250));
    }

    @Property
    void delayStaysWithinItsBounds(@ForAll @IntRange(min = 1, max = 200) int retry, @ForAll long seed) {
        RetryPolicy policy = RetryPolicy.defaults();
        Duration delay = policy.delayBefore(retry, failure(null), () -> seed);
        assertThat(delay).isGreaterThanOrEqualTo(Duration.ofMillis(500)).isLessThanOrEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void retryAfterIsHonouredAndCapped() {
        RetryPolicy policy = RetryPolicy.defaults();
        assertThat(policy.delayBefore(1, failure(Duration.ofSeconds(7)), MAX_JITTER)).isEqualTo(Duration.ofSeconds(7));
        assertThat(policy.delayBefore(1, failure(Duration.ofHours(1)), NO_JITTER)).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void retryAfterNeverShortensTheBackoff() {
        RetryPolicy policy = RetryPolicy.defaults();
        assertThat(policy.delayBefore(3, failure(Duration.ZERO), NO_JITTER)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.delayBefore(3, failure(Duration.ofSeconds(1)), NO_JITTER)).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void invalidSettingsSayWhatToFix() {
        assertThatThrownBy(() -> new RetryPolicy(-1, Duration.ZERO, Duration.ZERO)).hasMessageContaining("maxRetries");
        assertThatThrownBy(() -> new RetryPolicy(1, Duration.ofMillis(-1), Duration.ZERO)).hasMessageContaining("initialDelay");
        assertThatThrownBy(() -> RetryPolicy.defaults().delayBefore(0, null, NO_JITTER)).hasMessageContaining("from 1");
    }
}
