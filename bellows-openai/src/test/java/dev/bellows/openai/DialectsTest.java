package dev.bellows.openai;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@code sse} sample of DIALECTS.md, replayed over real HTTP, decodes to its
 * {@code expect} block: once one network write per event, once in 7-byte writes (which split
 * lines, CRLF-free JSON, and multi-byte UTF-8 characters).
 */
class DialectsTest {

    private static final Pattern BLOCK = Pattern.compile("```(sse|expect) (\\S+)\\n(.*?)\\n```", Pattern.DOTALL);
    private static final ObjectMapper JSON = Jackson.JSON;

    record Sample(String name, String sse, List<String> expect) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Map<String, Sample> samples() throws IOException {
        String doc = Files.readString(Path.of("DIALECTS.md"), StandardCharsets.UTF_8);
        Map<String, String> sse = new LinkedHashMap<>();
        Map<String, String> expect = new LinkedHashMap<>();
        Matcher m = BLOCK.matcher(doc);
        while (m.find()) {
            (m.group(1).equals("sse") ? sse : expect).put(m.group(2), m.group(3));
        }
        assertThat(expect.keySet()).as("every sample has an expectation").containsExactlyElementsOf(sse.keySet());
        Map<String, Sample> samples = new LinkedHashMap<>();
        sse.forEach((name, body) -> samples.put(name, new Sample(name, body + "\n",
                Arrays.stream(expect.get(name).split("\n")).filter(l -> !l.isBlank()).toList())));
        return samples;
    }

    static Stream<Arguments> replays() throws IOException {
        List<Arguments> out = new ArrayList<>();
        for (Sample sample : samples().values()) {
            out.add(Arguments.of(sample, 0));
            out.add(Arguments.of(sample, 7));
        }
        return out.stream();
    }

    @Test
    void theDocumentCoversEveryServer() throws IOException {
        assertThat(samples().keySet()).contains("openai", "openai-error", "openrouter", "ollama", "vllm",
                "vllm-reasoning", "vllm-error", "llamacpp", "llamacpp-2025", "llamacpp-no-done", "llamacpp-error",
                "llamacpp-legacy-error", "lmstudio", "lmstudio-gpt-oss");
    }

    @ParameterizedTest(name = "{0}, writes of {1} bytes (0: one per event)")
    @MethodSource("replays")
    void decodesAsDocumented(Sample sample, int writeSize) throws Exception {
        try (FakeServer server = new FakeServer(conn -> {
            conn.sseHead();
            byte[] bytes = sample.sse().getBytes(StandardCharsets.UTF_8);
            if (writeSize == 0) {
                for (String event : sample.sse().split("(?<=\n\n)")) {
                    conn.send(event);
                }
            } else {
                for (int i = 0; i < bytes.length; i += writeSize) {
                    conn.sendBytes(Arrays.copyOfRange(bytes, i, Math.min(bytes.length, i + writeSize)));
                }
            }
            conn.end();
        }); OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base()).build()) {
            List<String> actual = new ArrayList<>();
            try (ChatStream stream = provider.stream(TestSupport.request())) {
                List<StreamChunk> chunks = new ArrayList<>();
                ProviderException failure = null;
                try {
                    for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                        chunks.add(chunk);
                    }
                } catch (ProviderException e) {
                    failure = e;
                }
                List<StreamChunk> answer = new ArrayList<>();
                for (StreamChunk chunk : chunks) {
                    switch (chunk) {
                        case StreamChunk.Text text -> actual.add("MESSAGE " + JSON.writeValueAsString(text.text()));
                        case StreamChunk.Reasoning thinking ->
                                actual.add("THINKING " + JSON.writeValueAsString(thinking.text()));
                        case StreamChunk.ResponseInfo info ->
                                assertThat(answer).as("the response's id and model come before its chunks").isEmpty();
                        case StreamChunk.Usage usage -> assertThat(chunks.getLast())
                                .as("the usage frame is the last, as usage() says").isSameAs(usage)
                                .isEqualTo(stream.usage().map(u -> new StreamChunk.Usage(u.inputTokens(), u.outputTokens()))
                                        .orElseThrow());
                        default -> actual.add(chunk.toString());
                    }
                    if (!(chunk instanceof StreamChunk.ResponseInfo) && !(chunk instanceof StreamChunk.Usage)) {
                        answer.add(chunk);
                    }
                }
                assertThat(chunks.stream().filter(StreamChunk.ResponseInfo.class::isInstance).count()).isLessThanOrEqualTo(1);
                if (failure != null) {
                    actual.add("error " + failure.kind());
                } else {
                    stream.finishReason().ifPresent(reason -> actual.add("finish " + reason));
                    stream.usage().ifPresent(u -> actual.add("usage " + u.inputTokens() + " " + u.outputTokens()));
                }
                List<String> expected = new ArrayList<>();
                String errorText = null;
                for (String line : sample.expect()) {
                    if (line.startsWith("error ")) {
                        String[] parts = line.split(" ", 3);
                        expected.add("error " + parts[1]);
                        errorText = JSON.readValue(parts[2], String.class);
                    } else if (line.startsWith("MESSAGE ") || line.startsWith("THINKING ")) {
                        int space = line.indexOf(' ');
                        expected.add(line.substring(0, space) + " "
                                + JSON.writeValueAsString(JSON.readValue(line.substring(space + 1), String.class)));
                    } else {
                        expected.add(line);
                    }
                }
                assertThat(actual).containsExactlyElementsOf(expected);
                if (errorText != null) {
                    assertThat(failure.getMessage()).contains(errorText);
                }
            }
        }
    }
}
