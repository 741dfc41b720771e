package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

class HttpSettingsTest {

    @Test
    void theDefaultTlsContextIsTheJdks() throws Exception {
        HttpSettings settings = new HttpSettings(Duration.ofSeconds(1), Duration.ofSeconds(2));
        assertThat(settings.sslContext()).isSameAs(SSLContext.getDefault());
        assertThat(HttpSettings.defaults().sslContext()).isSameAs(SSLContext.getDefault());
        assertThat(settings.toString())
                .isEqualTo("HttpSettings[connectTimeout=PT1S, idleTimeout=PT2S, sslContext=default]");
    }

    @Test
    void anotherTlsContextKeepsTheTimeLimits() throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, null, null);
        HttpSettings settings = HttpSettings.defaults().withIdleTimeout(Duration.ofSeconds(5)).withSslContext(context);
        assertThat(settings.sslContext()).isSameAs(context);
        assertThat(settings.idleTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.connectTimeout()).isEqualTo(HttpSettings.defaults().connectTimeout());
        assertThat(settings.withConnectTimeout(Duration.ofSeconds(3)).sslContext()).isSameAs(context);
        assertThat(settings.toString()).endsWith("sslContext=custom]");
    }

    @Test
    void aMissingTlsContextIsRejected() {
        assertThatThrownBy(() -> HttpSettings.defaults().withSslContext(null))
                .isInstanceOf(NullPointerException.class).hasMessage("sslContext");
    }
}
