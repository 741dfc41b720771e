package dev.bellows.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.http.internal.ErrorBodies;
import org.junit.jupiter.api.Test;

class ErrorBodiesTest {

    @Test
    void openAiShape() {
        String body = """
                {"error": {"message": "Incorrect API key provided: sk-abc***xyz.", "type": "invalid_request_error",
                  "param": null, "code": "invalid_api_key"}}""";
        assertThat(ErrorBodies.message(body)).isEqualTo("Incorrect API key provided: sk-abc***xyz.");
    }

    @Test
    void anthropicShape() {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";
        assertThat(ErrorBodies.message(body)).isEqualTo("Overloaded");
    }

    @Test
    void ollamaAndLlamaCppStringError() {
        assertThat(ErrorBodies.message("{\"error\":\"model 'llama9' not found\"}")).isEqualTo("model 'llama9' not found");
    }

    @Test
    void plainMessageAndDetail() {
        assertThat(ErrorBodies.message("{\"message\":\"slow down\"}")).isEqualTo("slow down");
        assertThat(ErrorBodies.message("{\"detail\":\"Not Found\"}")).isEqualTo("Not Found");
        assertThat(ErrorBodies.message("{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"field required\"}]}"))
                .isEqualTo("field required");
    }

    @Test
    void otherBodiesAreTrimmedAndCut() {
        assertThat(ErrorBodies.message("  <html>Bad Gateway</html>\n")).isEqualTo("<html>Bad Gateway</html>");
        assertThat(ErrorBodies.message("{\"unexpected\": true}")).isEqualTo("{\"unexpected\": true}");
        assertThat(ErrorBodies.message("{not json")).isEqualTo("{not json");
        assertThat(ErrorBodies.message("y".repeat(5000))).hasSize(ErrorBodies.MAX_LENGTH + 1).endsWith("…");
        assertThat(ErrorBodies.message("")).isEmpty();
        assertThat(ErrorBodies.message(null)).isEmpty();
    }
}
